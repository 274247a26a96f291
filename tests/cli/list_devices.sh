#!/bin/sh
# qgate list --devices: a line per device of each GPU backend, or its skip reason; the CTest
# resource spec names every listed device by its index; ctest's allocation picks the device
# (an id that is not here is refused with the reason). "$1" is qgate.
out=$("$1" list --devices) || { echo "exit $?"; exit 1; }
for b in vulkan cuda hip; do
  printf '%s\n' "$out" | grep -Eq "^$b +(0  .|-  skipped: .)" || { echo "no line for $b"; echo "$out"; exit 1; }
done
spec=$("$1" list --devices --ctest-resource-spec --slots 3) || { echo "spec: exit $?"; exit 1; }
case "$spec" in *'"local": ['*'"cuda": ['*'"hip": ['*'"vulkan": ['*'"major": 1'*) ;; *) echo "$spec"; exit 1;; esac
# each device listed for vulkan is one id with 3 slots; a backend without one has the id "absent"
if printf '%s\n' "$out" | grep -Eq '^vulkan +0  '; then
  n=$(printf '%s\n' "$out" | awk '/^vulkan/ {v=1} /^(cuda|hip)/ {v=0} v && $0 ~ /^(vulkan)? +[0-9]+  / {c++} END {print c+0}')
  got=$(printf '%s\n' "$spec" | tr -d ' \n' | sed 's/.*"vulkan":\[\([^]]*\)\].*/\1/' | grep -o '"slots":3' | wc -l)
  [ "$got" -eq "$n" ] || { echo "$n vulkan devices, $got spec ids"; echo "$spec"; exit 1; }
  # ctest's allocation selects the device; an id this machine lacks is refused with the reason
  CTEST_RESOURCE_GROUP_COUNT=1 CTEST_RESOURCE_GROUP_0_VULKAN=id:0,slots:1 "$1" list --backends | grep -Eq '^vulkan +[0-9]+ +available' \
    || { echo "id:0 not accepted"; exit 1; }
  got=$(CTEST_RESOURCE_GROUP_COUNT=1 CTEST_RESOURCE_GROUP_0_VULKAN=id:$n,slots:1 "$1" list --backends)
  case "$got" in *"CTEST_RESOURCE_GROUP_0_VULKAN='id:$n,slots:1' (ctest's resource allocation) names no vulkan device here"*) ;;
    *) echo "id:$n: $got"; exit 1;; esac
fi
"$1" list --ctest-resource-spec >/dev/null 2>&1; [ $? -eq 2 ] || { echo "--ctest-resource-spec without --devices accepted"; exit 1; }
"$1" list --devices --formats >/dev/null 2>&1; [ $? -eq 2 ] || { echo "exclusive flags accepted"; exit 1; }
exit 0
