#pragma once
// The portable core in one include: View, policies, dispatch. Knows nothing of QCD.
#include "dslash/core/parallel.hpp"
#include "dslash/core/view.hpp"
