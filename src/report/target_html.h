// The HTML of a program's target part in the compile report (backend/target_report.h): the
// device, the notes on where the figures come from, a table of kernel launches with their
// resources, the planned device memory by region, the ops copied through the host and the
// compile statistics. Known only as plain data: the report names no target.
#pragma once

#include <string>

#include "backend/target_report.h"

namespace kiln {

// "" for an empty report (a target with nothing beyond the loop IR and memory plan).
std::string target_html(const TargetReport& t);

}  // namespace kiln
