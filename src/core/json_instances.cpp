// The one place nlohmann/json's classes are instantiated (why: json_instances.h).
#include "core/json_instances.h"

#ifdef LAB_CHECK_JSON_EXTERN_TEMPLATES
LAB_CHECK_JSON_INSTANCES()
#endif
