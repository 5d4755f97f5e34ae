#!/usr/bin/env bash
# The standard datatype sweep on LeNet-5 for CI: every datatype below under dtype and float32 accumulation, against
# float32 on the same images, with an accuracy gate. Writes results.csv, results.json, the charts and
# report.html into the report folder (argument 1, default build/sweep-report), which a CI system publishes.
#
#   scripts/sweep-ci.sh [REPORT_DIR] [--shard i/n] [more byodt sweep options]
#
# Datatypes: SWEEP_DTYPES (default below), gated ones SWEEP_GATE, accumulation modes SWEEP_ACCUMULATE.
# Data: the full 10,000-image Fashion-MNIST test set when Debian's dataset-fashion-mnist is installed,
# else the 1,000-image sample in models/. Gate: the 16-bit formats may lose at most MAX_DROP points
# (default 1.0) of top-1 against float32; the sweep also fails when a configuration does not compile.
# With --shard, each job writes its share and `byodt sweep merge` joins the shard folders (see README).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
report=${1:-build/sweep-report}
[ $# -gt 0 ] && shift

data=sample
[ -d /usr/share/datasets/fashion-mnist ] && data=fashion-mnist

dtypes=${SWEEP_DTYPES:-'bfloat16,float16,custom[fp8e4m3]8,custom[fp8e5m2]8,custom[posit]{8,16},fxp16_8..15,fxp8_3..6'}
gate=${SWEEP_GATE:-'bfloat16,float16,custom[posit]16,fxp16_9..12'}

exec "$root/scripts/byodt" sweep "$root/models/lenet5-fashion.onnx" \
  --dtypes "$dtypes" --accumulate "${SWEEP_ACCUMULATE:-dtype,float32}" \
  --data "$data" --batch "${SWEEP_BATCH:-16}" \
  --gate "$gate" --max-drop "${MAX_DROP:-1.0}" \
  --out "$report" "$@"
