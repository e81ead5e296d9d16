// kiln::Error, for the includes that name it here (include/kiln/kiln.h among them); it lives in
// support/error.h, below core, which throws it too.
#pragma once

#include "support/error.h"
