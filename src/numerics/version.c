/* Version string of the library (the results file stores it as an attribute). */
#include <simreach/base.h>

const char *SRVersion(void) { return SR_VERSION_STRING; }
