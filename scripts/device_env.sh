# Sourced by the device scripts: $OUT for results, and torchao from the wheels carried in .whl/
# when the machine has no torchao (or pydantic) of its own.
OUT=${OUT:-./device-out}
mkdir -p "$OUT"
if ! python3 -c 'import torchao, pydantic' 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}  # wheels installed by a script that sourced this one stay
fi
export PYTHONUNBUFFERED=1
