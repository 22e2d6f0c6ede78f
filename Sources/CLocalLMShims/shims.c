// The helpers are static inline in include/CLocalLMShims.h; SwiftPM needs one source file per C target.
#include "CLocalLMShims.h"
