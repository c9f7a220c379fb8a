// The C platform target only re-exports system headers (include/CPlatform.h); SwiftPM needs a
// source file in a C target.
#include "CPlatform.h"
