#!/usr/bin/env python3
"""elf_weak_versions.py MAX FILE...: in each ELF file, marks the needs for GLIBC_x.y versions newer
than MAX weak (VER_FLG_WEAK in .gnu.version_r), so the dynamic linker of an older glibc loads the
file instead of refusing it; the symbols of those versions must then come from another library
(cmake/glibc_compat.c). Prints each change; changes nothing else. Used by cmake/bundle_libs.cmake."""
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE
VER_FLG_WEAK = 0x2


def version_key(name):
    return tuple(int(x) for x in name[len("GLIBC_"):].split("."))


def weaken(path, max_version):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise SystemExit(f"{path}: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        changed = []
        for _, sh_type, _, _, offset, _, link, info, _, _ in sections:
            if sh_type != SHT_GNU_VERNEED:
                continue
            strtab = sections[link][4]
            name_at = lambda o: data[strtab + o:data.index(b"\0", strtab + o)].decode()
            need = offset
            for _ in range(info):
                _, cnt, file_name, aux, nxt = struct.unpack_from("<HHIII", data, need)
                at = need + aux
                for _ in range(cnt):
                    _, flags, _, name, aux_next = struct.unpack_from("<IHHII", data, at)
                    version = name_at(name)
                    if version.startswith("GLIBC_") and version_key(version) > max_version and not flags & VER_FLG_WEAK:
                        struct.pack_into("<H", data, at + 4, flags | VER_FLG_WEAK)
                        changed.append(f"{version} from {name_at(file_name)}")
                    at += aux_next
                need += nxt
                if not nxt:
                    break
        if changed:
            f.seek(0)
            f.write(data)
            print(f"{path}: weak: {', '.join(changed)}")


def main():
    max_version = version_key("GLIBC_" + sys.argv[1])
    for path in sys.argv[2:]:
        weaken(path, max_version)


if __name__ == "__main__":
    main()
