// All nn modules (frontend/nn/).
#pragma once

#include "frontend/nn/batch_norm2d.h"
#include "frontend/nn/conv2d.h"
#include "frontend/nn/dropout.h"
#include "frontend/nn/embedding.h"
#include "frontend/nn/graph_module.h"
#include "frontend/nn/layer_norm.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"
#include "frontend/nn/module_list.h"
#include "frontend/nn/rms_norm.h"
#include "frontend/nn/sequential.h"
