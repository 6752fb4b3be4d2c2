"""apkgen.py: writes small APKs with a binary AndroidManifest.xml and resources.arsc from scratch, for the
metadata reader's tests (references through the resource table, UTF-8 and UTF-16 pools, configurations, ABIs)
and its fuzz seeds. `aapt dump badging` is the judge of what such an APK says, never this file."""
import struct
import zipfile

ANDROID_NS = "http://schemas.android.com/apk/res/android"
ATTR_IDS = {"versionCode": 0x0101021B, "versionName": 0x0101021C, "minSdkVersion": 0x0101020C,
            "targetSdkVersion": 0x01010270, "label": 0x01010001}
T_REF, T_STRING, T_INT_DEC, T_INT_HEX = 0x01, 0x03, 0x10, 0x11


def _pad4(b):
    return b + b"\0" * (-len(b) % 4)


def _len8(n):
    return bytes([n]) if n < 0x80 else bytes([0x80 | (n >> 8), n & 0xFF])


def string_pool(strings, utf8=False):
    data, offsets = b"", []
    for s in strings:
        offsets.append(len(data))
        if utf8:
            enc = s.encode("utf-8")
            data += _len8(len(s.encode("utf-16-le")) // 2) + _len8(len(enc)) + enc + b"\0"
        else:
            enc = s.encode("utf-16-le")
            n = len(enc) // 2
            data += (struct.pack("<H", n) if n < 0x8000 else struct.pack("<HH", 0x8000 | (n >> 16), n & 0xFFFF))
            data += enc + b"\0\0"
    data = _pad4(data)
    hsize = 28
    strings_start = hsize + 4 * len(strings)
    body = b"".join(struct.pack("<I", o) for o in offsets) + data
    size = hsize + len(body)
    return struct.pack("<HHIIIIII", 0x0001, hsize, size, len(strings), 0, 0x100 if utf8 else 0, strings_start, 0) + body


class Pool:
    def __init__(self, first):
        self.strings = list(first)

    def idx(self, s):
        if s not in self.strings:
            self.strings.append(s)
        return self.strings.index(s)


def manifest(package, attrs, sdk_attrs=None, utf8=False, extra_elements=()):
    """attrs / sdk_attrs: lists of (name, type, value) for android: attributes; value is an int or a str
    (a str with T_STRING). package may be None (no package attribute)."""
    names = [n for n, _, _ in attrs] + [n for n, _, _ in (sdk_attrs or [])]
    with_ids = [n for n in ATTR_IDS if n in names]
    pool = Pool(with_ids)
    resmap = [ATTR_IDS[n] for n in with_ids]
    ns_prefix, ns_uri = pool.idx("android"), pool.idx(ANDROID_NS)

    def attr(ns, name, typ, val):
        raw = 0xFFFFFFFF
        if typ == T_STRING:
            raw = pool.idx(val)
            data = raw
        else:
            data = val
        return struct.pack("<IIIHBBI", ns, pool.idx(name), raw, 8, 0, typ, data & 0xFFFFFFFF)

    def start(name, alist, line):
        body = struct.pack("<IIHHHHHH", 0xFFFFFFFF, pool.idx(name), 20, 20, len(alist), 0, 0, 0) + b"".join(alist)
        return struct.pack("<HHIII", 0x0102, 16, 16 + len(body), line, 0xFFFFFFFF) + body

    def end(name, line):
        return struct.pack("<HHIIIII", 0x0103, 16, 24, line, 0xFFFFFFFF, 0xFFFFFFFF, pool.idx(name))

    m_attrs = [attr(ns_uri, n, t, v) for n, t, v in attrs]
    if package is not None:
        m_attrs.append(attr(0xFFFFFFFF, "package", T_STRING, package))
    nodes = start("manifest", m_attrs, 1)
    if sdk_attrs is not None:
        nodes += start("uses-sdk", [attr(ns_uri, n, t, v) for n, t, v in sdk_attrs], 2) + end("uses-sdk", 2)
    for e in extra_elements:
        nodes += start(e, [], 3) + end(e, 3)
    nodes += end("manifest", 4)
    ns_start = struct.pack("<HHIIIII", 0x0100, 16, 24, 1, 0xFFFFFFFF, ns_prefix, ns_uri)
    ns_end = struct.pack("<HHIIIII", 0x0101, 16, 24, 4, 0xFFFFFFFF, ns_prefix, ns_uri)
    sp = string_pool(pool.strings, utf8)
    rm = struct.pack("<HHI", 0x0180, 8, 8 + 4 * len(resmap)) + b"".join(struct.pack("<I", r) for r in resmap)
    body = sp + rm + ns_start + nodes + ns_end
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def _config(language=b""):
    cfg = bytearray(64)
    struct.pack_into("<I", cfg, 0, 64)
    if language:
        cfg[8:10] = language
    return bytes(cfg)


def resource_table(package, types, utf8=False):
    """types: {type_name: [(key, [(language, value_type, value)...])...]} (type ids 1.. in order); a str value
    with T_STRING goes to the global pool. Returns (arsc bytes, {(type, key): resource id})."""
    gpool = Pool([])
    keys = Pool([])
    ids = {}
    chunks = b""
    for t_index, (tname, entries) in enumerate(types.items(), start=1):
        spec = struct.pack("<HHIBBHI", 0x0202, 16, 16 + 4 * len(entries), t_index, 0, 0, len(entries))
        spec += b"\0\0\0\0" * len(entries)
        chunks += spec
        languages = []
        for _, values in entries:
            for lang, _, _ in values:
                if lang not in languages:
                    languages.append(lang)
        for lang in languages:
            offsets, data = [], b""
            for e_index, (key, values) in enumerate(entries):
                ids[(tname, key)] = 0x7F000000 | (t_index << 16) | e_index
                hit = [v for v in values if v[0] == lang]
                if not hit:
                    offsets.append(0xFFFFFFFF)
                    continue
                _, vt, val = hit[0]
                d = gpool.idx(val) if vt == T_STRING else val
                offsets.append(len(data))
                data += struct.pack("<HHI", 8, 0, keys.idx(key)) + struct.pack("<HBBI", 8, 0, vt, d & 0xFFFFFFFF)
            hsize = 20 + 64
            entries_start = hsize + 4 * len(entries)
            body = b"".join(struct.pack("<I", o) for o in offsets) + data
            chunks += struct.pack("<HHIBBHII", 0x0201, hsize, hsize + len(body), t_index, 0, 0, len(entries),
                                  entries_start) + _config(lang) + body
    type_pool = string_pool(list(types.keys()))
    key_pool = string_pool(keys.strings)
    name = package.encode("utf-16-le")[:254].ljust(256, b"\0")
    phsize = 288
    pbody = type_pool + key_pool + chunks
    pkg = struct.pack("<HHII", 0x0200, phsize, phsize + len(pbody), 0x7F) + name
    pkg += struct.pack("<IIIII", phsize, 0, phsize + len(type_pool), 0, 0) + pbody
    gp = string_pool(gpool.strings, utf8)
    body = gp + pkg
    return struct.pack("<HHII", 0x0002, 12, 12 + len(body), 1) + body, ids


def write_apk(path, manifest_bytes, arsc=None, extra=()):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("AndroidManifest.xml", manifest_bytes)
        if arsc is not None:
            z.writestr(zipfile.ZipInfo("resources.arsc"), arsc)  # stored, as aapt2 does
        for name, data in extra:
            z.writestr(name, data)
