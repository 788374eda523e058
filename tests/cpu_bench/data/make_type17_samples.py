"""Writes annotated hex dumps of SMBIOS type 17 records, field by field from DMTF DSP0134 3.x, so
every byte can be checked against the specification by eye. Run: python3 make_type17_samples.py"""


def w(v): return [v & 0xff, v >> 8 & 0xff]
def d(v): return w(v & 0xffff) + w(v >> 16)
def q(v): return d(v & 0xffffffff) + d(v >> 32)


def record(path, title, fields, strings):
    lines = [f"# {title}", "# bytes                  # offset, field"]
    raw = []
    for name, data in fields:
        lines.append(f"{' '.join(f'{b:02x}' for b in data):<24} # 0x{len(raw):02x} {name}")
        raw += data
    assert raw[1] == len(raw), (path, raw[1], len(raw))
    for s in strings:
        lines.append(f"{' '.join(f'{b:02x}' for b in list(s.encode()) + [0])}  # string \"{s}\"")
    lines.append("00  # end of the string set")
    open(path, "w").write("\n".join(lines) + "\n")


def type17(length, handle, array, total_w, data_w, size, ff, mtype, detail, speed, ext_size=0,
           conf_speed=0, volt=0, volatile=0, strings=(1, 2, 0, 0, 0, 0), rank=1):
    dev, bank, manu, serial, asset, part = strings
    f = [("type 17", [17]), ("length", [length]), ("handle", w(handle)),
         ("physical memory array handle", w(array)), ("error information handle", w(0xFFFE)),
         ("total width (bits)", w(total_w)), ("data width (bits)", w(data_w)), ("size", w(size)),
         ("form factor", [ff]), ("device set", [0]), ("device locator (string)", [dev]),
         ("bank locator (string)", [bank]), ("memory type", [mtype]), ("type detail", w(detail)),
         ("speed (MT/s)", w(speed)), ("manufacturer (string)", [manu]),
         ("serial number (string)", [serial]), ("asset tag (string)", [asset]),
         ("part number (string)", [part])]
    if length >= 0x1C:
        f += [("attributes (rank)", [rank])]
    if length >= 0x22:
        f += [("extended size (MiB)", d(ext_size)), ("configured memory speed (MT/s)", w(conf_speed))]
    if length >= 0x28:
        f += [("minimum voltage (mV)", w(volt)), ("maximum voltage (mV)", w(volt)),
              ("configured voltage (mV)", w(volt))]
    if length >= 0x54:
        f += [("memory technology (DRAM)", [3]), ("operating mode capability", w(0x0004)),
              ("firmware version (string)", [0]), ("module manufacturer id", w(0)),
              ("module product id", w(0)), ("subsystem controller manufacturer id", w(0)),
              ("subsystem controller product id", w(0)), ("non-volatile size", q(0)),
              ("volatile size", q(volatile)), ("cache size", q(0)), ("logical size", q(0))]
    return f


record("type17_ddr4_rdimm_epyc_server.hex",
       "SMBIOS 3.2, 84 bytes: 32 GiB DDR4-3200 RDIMM configured at 2933 MT/s (EPYC server)",
       type17(0x54, 0x0070, 0x0007, 72, 64, 0x7FFF, 0x09, 0x1A, 0x2080, 3200, ext_size=32768,
              conf_speed=2933, volt=1200, volatile=32 << 30, strings=(1, 2, 3, 0, 0, 4), rank=2),
       ["CPU1_DIMM_Q1", "P1 CHANNEL Q", "Micron Technology", "36ASF4G72PZ-3G2E7"])

record("type17_ddr4_sodimm_laptop.hex",
       "SMBIOS 3.2, 84 bytes: 8 GiB DDR4-2667 SODIMM in a laptop's first channel",
       type17(0x54, 0x003A, 0x0024, 64, 64, 8192, 0x0D, 0x1A, 0x0080, 2667, conf_speed=2667,
              volt=1200, volatile=8 << 30, strings=(1, 2, 3, 0, 0, 4)),
       ["ChannelA-DIMM0", "BANK 0", "Samsung", "M471A1K43CB1-CTD"])

record("type17_empty_slot.hex",
       "SMBIOS 2.8, 40 bytes: an empty slot (size 0, widths and speed unknown)",
       type17(0x28, 0x0042, 0x0024, 0xFFFF, 0xFFFF, 0, 0x09, 0x02, 0x0004, 0),
       ["DIMM_B2", "BANK 3"])

record("type17_ddr3_smbios23.hex",
       "SMBIOS 2.3, 27 bytes: 4 GiB DDR3-1600 DIMM, before the configured-speed field existed",
       type17(0x1B, 0x1100, 0x1000, 64, 64, 4096, 0x09, 0x18, 0x0080, 1600),
       ["DIMM_A1", "BANK 0"])
