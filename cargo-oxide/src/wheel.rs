//! A wheel (PEP 427): a zip of the extension module and its `.dist-info` (`METADATA`, `WHEEL`,
//! `RECORD`), written here without compression, with each file's SHA-256 in `RECORD`.

use sha2::{Digest, Sha256};

/// One file of the wheel: its path inside it and its bytes.
pub struct Entry {
    pub path: String,
    pub data: Vec<u8>,
}

/// The `.dist-info` files of a wheel of `name` `version` with `tag`
/// (`cp39-abi3-linux_x86_64`), after `files`, with `RECORD` last.
pub fn with_dist_info(name: &str, version: &str, tag: &str, mut files: Vec<Entry>) -> Vec<Entry> {
    let dist_info = format!("{name}-{version}.dist-info");
    files.push(Entry {
        path: format!("{dist_info}/METADATA"),
        data: format!(
            "Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Python: >=3.9\n\
             Summary: oxide kernels as Python functions (built by cargo oxide python)\n"
        )
        .into_bytes(),
    });
    files.push(Entry {
        path: format!("{dist_info}/WHEEL"),
        data: format!(
            "Wheel-Version: 1.0\nGenerator: cargo-oxide {}\nRoot-Is-Purelib: false\nTag: {tag}\n",
            env!("CARGO_PKG_VERSION")
        )
        .into_bytes(),
    });
    let mut record = String::new();
    for file in &files {
        let digest = Sha256::digest(&file.data);
        record.push_str(&format!(
            "{},sha256={},{}\n",
            file.path,
            base64_url(&digest),
            file.data.len()
        ));
    }
    let record_path = format!("{dist_info}/RECORD");
    record.push_str(&format!("{record_path},,\n"));
    files.push(Entry {
        path: record_path,
        data: record.into_bytes(),
    });
    files
}

/// The wheel's tag for a host triple: CPython's stable ABI from 3.9 on that platform.
pub fn tag(triple: &str) -> Option<String> {
    let arch = triple.split('-').next()?;
    triple
        .contains("-linux-")
        .then(|| format!("cp39-abi3-linux_{arch}"))
}

/// URL-safe base64 without padding, as `RECORD` writes digests.
fn base64_url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// A zip archive of `entries`, stored (not compressed).
pub fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let crc = crc32(&entry.data);
        let (size, name) = (entry.data.len() as u32, entry.path.as_bytes());
        // Local file header: version 2.0, no flags, stored, a fixed time (1980-01-01).
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        for word in [crc, size, size] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(&entry.data);
        // Its central directory record: made by Unix (for the mode), rw-r--r-- or rwxr-xr-x.
        let mode: u32 = if entry.path.ends_with(".so") {
            0o100755
        } else {
            0o100644
        };
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        for word in [crc, size, size] {
            central.extend_from_slice(&word.to_le_bytes());
        }
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let (start, count) = (out.len() as u32, entries.len() as u16);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// The CRC-32 (IEEE) zip keeps of each file.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_and_checksums_are_the_standard_ones() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(base64_url(b"\xfb\xff"), "-_8");
        assert_eq!(base64_url(b"abc"), "YWJj");
        assert_eq!(
            tag("x86_64-unknown-linux-gnu").as_deref(),
            Some("cp39-abi3-linux_x86_64")
        );
        assert_eq!(tag("x86_64-apple-darwin"), None);
    }

    #[test]
    fn the_record_lists_every_file_and_itself() {
        let files = vec![Entry {
            path: "m.abi3.so".into(),
            data: b"elf".to_vec(),
        }];
        let all = with_dist_info("m", "0.1.0", "cp39-abi3-linux_x86_64", files);
        let record = String::from_utf8(all.last().unwrap().data.clone()).unwrap();
        let digest = base64_url(&Sha256::digest(b"elf"));
        assert!(
            record.starts_with(&format!("m.abi3.so,sha256={digest},3\n")),
            "{record}"
        );
        assert!(record.ends_with("m-0.1.0.dist-info/RECORD,,\n"), "{record}");
        assert_eq!(all.len(), 4);
        let archive = zip(&all);
        assert_eq!(&archive[..4], b"PK\x03\x04");
        assert_eq!(
            &archive[archive.len() - 22..archive.len() - 18],
            b"PK\x05\x06"
        );
    }
}
