"""Per-chat settings: the /settings command, its values and who may change them."""
