#!/usr/bin/env bash
# requires: libtorch (ppo)
# A PPO checkpoint whose seal holds but whose environment state is damaged (damaged before it
# was sealed, or resealed after) is refused naming the checkpoint file and the way out.
# Usage: damaged_state_cli.sh PATH/TO/flashnerd
source "$(dirname "$0")/common.bash" "$1"
cd "$TMP"
PPO=(ppo --task cartpole-balance --envs 4 --steps-per-env 8 --quiet)
"$FN" "${PPO[@]}" --iterations 2 --checkpoint-every 1 --out run --json > /dev/null || fail "ppo"
# the environment state is the archive's last data record; its first 8 bytes are a length:
# make it absurd, fix the zip's CRCs and reseal the file as flashnerd does
/usr/bin/python3 - <<'PY' || fail "could not damage the checkpoint"
import io, struct, zipfile, zlib
path = "run/checkpoint.pt"
raw = open(path, "rb").read()
payload = bytearray(raw[raw.index(b"\n") + 1:])
z = zipfile.ZipFile(io.BytesIO(bytes(payload)))
records = [i for i in z.infolist() if i.filename.startswith("archive/data/")]
info = max(records, key=lambda i: int(i.filename.rsplit("/", 1)[1]))
name_len, extra_len = struct.unpack("<HH", payload[info.header_offset + 26:info.header_offset + 30])
start = info.header_offset + 30 + name_len + extra_len
payload[start:start + 8] = struct.pack("<Q", 1 << 40)
crc = zlib.crc32(payload[start:start + info.file_size]) & 0xFFFFFFFF
payload[info.header_offset + 14:info.header_offset + 18] = struct.pack("<I", crc)
eocd = payload.rindex(b"PK\x05\x06")  # the end record says where the central directory starts
central = struct.unpack("<I", payload[eocd + 16:eocd + 20])[0]
while True:
    n, e, c = struct.unpack("<HHH", payload[central + 28:central + 34])
    if payload[central + 46:central + 46 + n].decode() == info.filename:
        payload[central + 16:central + 20] = struct.pack("<I", crc)
        break
    central += 46 + n + e + c
h = 0xcbf29ce484222325
for b in payload:
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(path, "wb").write(b"FNSEAL1 %016x %d\n" % (h, len(payload)) + bytes(payload))
PY
expect_error "run/checkpoint.pt holds a damaged environment state" "${PPO[@]}" --iterations 3 --out run --resume
grep -q "start the run again with --overwrite" "$TMP/out.txt" || fail "the refusal gives no way out: $(cat "$TMP/out.txt")"
echo "damaged_state_cli: ok"
