/* simreach: simulation-regularised training of neural dynamics with sound reachability.
   Users include this header; see README.md and ../shared/SPEC.md for the method. */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>
#include <simreach/random.h>
#include <simreach/system.h>
#include <simreach/taylor.h>
#include <simreach/model.h>
#include <simreach/network.h>
#include <simreach/cells.h>
#include <simreach/loss.h>
#include <simreach/lossencl.h>
#include <simreach/metrics.h>
#include <simreach/abstraction.h>
#include <simreach/recheck.h>
#include <simreach/run.h>
#include <simreach/study.h>
