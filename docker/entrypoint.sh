#!/bin/sh
# Entry point of the dgrag images: runs `dgrag edge ...` / `dgrag cloud serve ...` with the image's data
# directory and the mounted config file filled in, so `docker run IMAGE edge serve` needs no flags.
#
#   DGRAG_DATA_DIR  data directory given to `dgrag edge` commands but `ask` (default /var/lib/dgrag, a volume)
#   DGRAG_CONFIG    TOML config; when unset, $DGRAG_CONFIG_DIR/<edge|cloud>.toml is used if it is mounted
#   DGRAG_CONFIG_DIR  where mounted config files are looked for (default /etc/dgrag)
#
# Flags given on the command line win. `health ...` runs `dgrag health ...`; other commands (sh, python,
# dgrag ..., such as compose's `dgrag models serve`) run unchanged.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: edge serve | edge <command> ... | cloud serve | health ADDRESS | <any command>" >&2
    exit 2
fi

role=$1
command=${2:-}
case "$role:$command" in
    edge:-*|edge:|cloud:-*|cloud:) exec dgrag "$@" ;;   # `edge --help` and the like
    edge:ask|edge:host) exec dgrag "$@" ;;            # a client of a running edge, or a host of many (its spec)
    edge:*|cloud:serve) ;;                            # gets --data-dir / --config below
    cloud:*|health:*|-*) exec dgrag "$@" ;;           # e.g. `health cloud:50051`, `--help`
    *) exec "$@" ;;
esac

has_config=false
has_data_dir=false
for arg in "$@"; do
    case $arg in
        --config|--config=*) has_config=true ;;
        --data-dir|--data-dir=*) has_data_dir=true ;;
    esac
done

if [ "$role" = edge ] && [ "$has_data_dir" = false ]; then
    set -- "$@" --data-dir "${DGRAG_DATA_DIR:-/var/lib/dgrag}"
fi
if [ "$has_config" = false ]; then
    if [ -n "${DGRAG_CONFIG:-}" ]; then
        set -- "$@" --config "$DGRAG_CONFIG"    # set on purpose: a missing file is an error, reported by dgrag
    elif [ -f "${DGRAG_CONFIG_DIR:-/etc/dgrag}/$role.toml" ]; then
        set -- "$@" --config "${DGRAG_CONFIG_DIR:-/etc/dgrag}/$role.toml"
    fi
fi
exec dgrag "$@"
