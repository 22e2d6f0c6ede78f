// OpenBLAS's CBLAS header. Debian installs it as /usr/include/<triple>/cblas.h (libopenblas-dev),
// found through pkg-config `openblas`.
#include <cblas.h>
