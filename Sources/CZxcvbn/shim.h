#ifndef COFFER_CZXCVBN_SHIM_H
#define COFFER_CZXCVBN_SHIM_H
/* Debian's zxcvbn-c has its dictionary compiled in (USE_DICT_FILE undefined): ZxcvbnInit is a
   macro that does nothing, so nothing needs initialising before ZxcvbnMatch. */
#include <zxcvbn.h>
#endif
