#include "CNimbusThreadLocal.h"

_Thread_local void *_Nullable nimbus_innermost_context NIMBUS_TLS_MODEL = 0;
