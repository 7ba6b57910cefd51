# tests/vm/pack-modules.sh: a Debian kernel's modules into a busybox
# guest's initramfs root (bash; sourced on the host by tests/vm/run and
# bench/run). The guest loads them with modprobe, or with insmod in
# dependency order where modprobe fails (tests/vm/lib.sh zram_load).

# zram_modules MODDIR: the zram and zsmalloc modules under MODDIR (one
# line each; zsmalloc is built in on 6.12 and not found there)
zram_modules() {
	find "$1" \( -name 'zram.ko*' -o -name 'zsmalloc.ko*' \)
}

# pack_modules KDIR MODDIR ROOT BUSYBOX FILE...: the module FILEs (under
# MODDIR, itself KDIR/lib/modules/VERSION), and what each depends on
# (modinfo -F depends, one level; the host's modinfo, skipped without
# one), copied into ROOT at their path under KDIR, decompressed if
# shipped as .ko.xz / .ko.zst / .ko.gz; then modules.dep for VERSION
# (BUSYBOX depmod; its failure is ignored, the guest can still insmod).
pack_modules() {
	local kdir=$1 moddir=$2 root=$3 busybox=$4 kv mods m dep rel
	shift 4
	kv=$(basename "$moddir")
	mods="$*"
	if command -v modinfo > /dev/null || [ -x /sbin/modinfo ]; then
		for m in $mods; do
			for dep in $( (command -v modinfo > /dev/null && modinfo -F depends "$m" || /sbin/modinfo -F depends "$m") 2>/dev/null | tr ',' ' '); do
				mods="$mods $(find "$moddir" -name "$dep.ko*" | head -n 1)"
			done
		done
	fi
	for m in $mods; do
		rel=${m#"$kdir"}
		mkdir -p "$root$(dirname "$rel")"
		case "$m" in
		*.ko.xz) xz -dc "$m" > "$root${rel%.xz}" ;;
		*.ko.zst) zstd -qdc "$m" > "$root${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$m" > "$root${rel%.gz}" ;;
		*) cp "$m" "$root$rel" ;;
		esac
	done
	"$busybox" depmod -b "$root" "$kv" 2>/dev/null || true
}
