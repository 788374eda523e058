// The one place std::regex's compiler and matcher are instantiated (why: regex_instances.h).
#include "core/regex_instances.h"

#ifdef LAB_CHECK_REGEX_EXTERN_TEMPLATES
LAB_CHECK_REGEX_INSTANCES()
#endif
