"""Language and script: which language a text is in and is answered in, Han-character detection and
normalisation (`text.py`), Simplified ⇄ Traditional (`script.py`) and the web history shown
in its reader's script (`scripted_history.py`)."""
