//! The system's memory, for a unified-memory GPU: the one reader of
//! `/proc/meminfo`.
//!
//! A GPU without memory of its own (DGX Spark's GB10, Jetson Thor, other
//! Grace-based systems) shares the system's: NVML answers NOT_SUPPORTED
//! for its memory (`nvmlDeviceGetMemoryInfo` and `_v2`), or a total of 0.
//! nvq's own views (`nvq mem`, `stat`, `top`, `run`, `serve`'s nvq profile)
//! then show the system's memory instead, marked as derived
//! ([`crate::model::Fact::MemoryDerived`]); nvidia-smi's views never do.
//! The rule is nvtop's (its NVIDIA reader since April 2026) and the
//! one NVIDIA's DGX Spark notes give: the total is `MemTotal`, the free
//! memory `MemAvailable`, the used memory the difference (docs/compat.md).
//!
//! `NVQ_MEMINFO` names a file read in place of `/proc/meminfo` (tests).

use crate::nvml::raw::MemInfo;
use crate::nvml::NvmlCode;
use std::io::Read;

/// The environment variable naming a file that stands for `/proc/meminfo`.
pub const MEMINFO_ENV: &str = "NVQ_MEMINFO";

/// The most of the file read: `/proc/meminfo` is about 1.5 KiB.
const MAX_BYTES: u64 = 64 * 1024;

/// What the kernel says of the system's memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemMemory {
    /// `MemTotal`.
    pub total: u64,
    /// `MemAvailable`: what can be given to programs without swapping.
    pub available: u64,
}

impl SystemMemory {
    /// The GPU's memory as nvq derives it: total `MemTotal`, free
    /// `MemAvailable`, used the rest; nothing reserved.
    pub fn as_gpu_memory(self) -> MemInfo {
        MemInfo {
            total: self.total,
            reserved: Err(NvmlCode::NOT_SUPPORTED),
            used: self.total - self.available,
            free: self.available,
        }
    }
}

/// Does this answer of NVML's mean the GPU has no memory of its own? NOT_SUPPORTED, or a
/// total of 0 (what nvitop and nvtop also take for unified memory).
pub fn is_unified(nvml: &Result<MemInfo, NvmlCode>) -> bool {
    match nvml {
        Err(code) => *code == NvmlCode::NOT_SUPPORTED,
        Ok(m) => m.total == 0,
    }
}

/// Read `/proc/meminfo` (or `NVQ_MEMINFO`'s file): `None` when it cannot
/// be read or lacks either line.
pub fn read() -> Option<SystemMemory> {
    let path = std::env::var_os(MEMINFO_ENV)
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "/proc/meminfo".into());
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_BYTES).read_to_string(&mut text))
        .ok()?;
    parse(&text)
}

/// `MemTotal` and `MemAvailable` of a meminfo text (`kB` lines, which are
/// KiB); `None` without both, with a total of 0, or with more available
/// than in all.
pub fn parse(text: &str) -> Option<SystemMemory> {
    let kib = |key: &str| -> Option<u64> {
        let line = text.lines().find_map(|l| l.strip_prefix(key))?;
        let mut words = line.split_whitespace();
        let n: u64 = words.next()?.parse().ok()?;
        (words.next() == Some("kB") && words.next().is_none()).then_some(n)?;
        n.checked_mul(1024)
    };
    let total = kib("MemTotal:")?;
    let available = kib("MemAvailable:")?;
    (total > 0 && available <= total).then_some(SystemMemory { total, available })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_and_available_in_bytes() {
        // A DGX Spark's (nvitop pull request 208).
        let text = "MemTotal:       127600748 kB\nMemFree:        100000000 kB\n\
                    MemAvailable:   118566368 kB\nBuffers:            1234 kB\n";
        let m = parse(text).unwrap();
        assert_eq!(m.total, 127_600_748 * 1024);
        assert_eq!(m.available, 118_566_368 * 1024);
        let g = m.as_gpu_memory();
        assert_eq!(g.used, (127_600_748 - 118_566_368) * 1024);
        assert_eq!(g.free, m.available);
        assert_eq!(g.total, m.total);
    }

    #[test]
    fn refuses_what_does_not_add_up() {
        for text in [
            "",
            "MemTotal: 100 kB\n",
            "MemAvailable: 10 kB\n",
            "MemTotal: 0 kB\nMemAvailable: 0 kB\n",
            "MemTotal: 10 kB\nMemAvailable: 20 kB\n",
            "MemTotal: 10 MB\nMemAvailable: 5 kB\n",
            "MemTotal: x kB\nMemAvailable: 5 kB\n",
            "MemTotal: 18446744073709551615 kB\nMemAvailable: 5 kB\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn unified_is_not_supported_or_no_total() {
        assert!(is_unified(&Err(NvmlCode::NOT_SUPPORTED)));
        assert!(!is_unified(&Err(NvmlCode::GPU_IS_LOST)));
        let m = |total| MemInfo {
            total,
            reserved: Ok(0),
            used: 0,
            free: total,
        };
        assert!(is_unified(&Ok(m(0))));
        assert!(!is_unified(&Ok(m(1 << 30))));
    }
}
