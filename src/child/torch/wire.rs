//! What the `--torch` module sends, read strictly: one JSON object a line,
//! of three kinds, with no field nvq does not know, numbers in range and
//! short texts. Anything else is refused (the caller counts it); nothing
//! a process of the job sends can make nvq do more than keep its numbers.

use serde::Deserialize;

/// The longest line read (bytes, newline excluded): 64 devices fit in a
/// quarter of it.
pub const MAX_LINE: usize = 16 << 10;
/// The most devices one sample may list.
pub const MAX_DEVICES: usize = 64;
/// The most bytes a counter may say (1 PiB): more is not a GPU's.
pub const MAX_BYTES: u64 = 1 << 50;
/// The longest error text kept (characters).
pub const MAX_TEXT: usize = 300;

/// One message of the module.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Message {
    /// The allocator's counters of each device the process holds memory on.
    Sample { pid: u32, devices: Vec<Device> },
    /// An error of the module, swallowed in the job.
    Error { pid: u32, text: String },
    /// PyTorch ran out of memory on `device`; the snapshot's file name when
    /// `--torch-snapshot` wrote one.
    Oom {
        pid: u32,
        device: Option<u32>,
        #[serde(default)]
        snapshot: Option<String>,
    },
}

/// One device's counters (bytes).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// The CUDA ordinal in the process (not NVML's index).
    pub index: u32,
    /// The device's UUID as torch gives it (without NVML's `GPU-`).
    #[serde(default)]
    pub uuid: Option<String>,
    /// `torch.cuda.memory_allocated`.
    pub allocated: u64,
    /// `torch.cuda.memory_reserved`.
    pub reserved: u64,
    /// `torch.cuda.max_memory_allocated`.
    pub max_allocated: u64,
}

/// Why a line was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not one of the module's messages (JSON, field, kind or type).
    NotAMessage,
    /// A message whose numbers or texts are out of range.
    OutOfRange,
}

impl Message {
    /// The PID the message says it is from.
    pub fn pid(&self) -> u32 {
        match self {
            Message::Sample { pid, .. } | Message::Error { pid, .. } | Message::Oom { pid, .. } => {
                *pid
            }
        }
    }
}

/// Read one line (without its newline).
pub fn parse(line: &[u8]) -> Result<Message, Refusal> {
    if line.len() > MAX_LINE {
        return Err(Refusal::OutOfRange);
    }
    let m: Message = serde_json::from_slice(line).map_err(|_| Refusal::NotAMessage)?;
    let ok = match &m {
        Message::Sample { devices, .. } => {
            devices.len() <= MAX_DEVICES
                && devices.iter().all(|d| {
                    d.index < MAX_DEVICES as u32
                        && d.allocated <= MAX_BYTES
                        && d.reserved <= MAX_BYTES
                        && d.max_allocated <= MAX_BYTES
                        && d.uuid.as_deref().map_or(true, uuid_like)
                })
        }
        Message::Error { text, .. } => text.chars().count() <= MAX_TEXT,
        Message::Oom {
            device, snapshot, ..
        } => {
            device.map_or(true, |d| d < MAX_DEVICES as u32)
                && snapshot.as_deref().map_or(true, snapshot_name)
        }
    };
    if ok {
        Ok(m)
    } else {
        Err(Refusal::OutOfRange)
    }
}

/// A UUID as torch writes it: hex digits and dashes, at most 64.
fn uuid_like(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// The module's snapshot file name: `torch-snapshot-<pid>.pickle`, nothing
/// else (no path).
fn snapshot_name(s: &str) -> bool {
    s.strip_prefix("torch-snapshot-")
        .and_then(|r| r.strip_suffix(".pickle"))
        .is_some_and(|pid| {
            !pid.is_empty() && pid.len() <= 10 && pid.bytes().all(|b| b.is_ascii_digit())
        })
}

/// An error text as the report may show it: control characters as `?`.
pub fn shown(text: &str) -> String {
    text.chars()
        .take(MAX_TEXT)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modules_messages_are_read() {
        let m = parse(br#"{"kind":"sample","devices":[{"index":0,"allocated":1,"reserved":2,"max_allocated":3,"uuid":"ab-12"}],"pid":7}"#).unwrap();
        assert_eq!(m.pid(), 7);
        let Message::Sample { devices, .. } = m else {
            panic!("{m:?}")
        };
        assert_eq!((devices[0].allocated, devices[0].reserved), (1, 2));
        assert_eq!(
            parse(br#"{"kind":"oom","device":0,"snapshot":"torch-snapshot-9.pickle","pid":9}"#),
            Ok(Message::Oom {
                pid: 9,
                device: Some(0),
                snapshot: Some("torch-snapshot-9.pickle".into())
            })
        );
        assert!(matches!(
            parse(br#"{"kind":"error","text":"x","pid":1}"#),
            Ok(Message::Error { .. })
        ));
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            &b"not json"[..],
            b"",
            b"[]",
            br#"{"kind":"sample","pid":1,"devices":[],"extra":1}"#,
            br#"{"kind":"shell","pid":1}"#,
            br#"{"pid":1,"devices":[]}"#,
            br#"{"kind":"sample","pid":-1,"devices":[]}"#,
            br#"{"kind":"sample","pid":1,"devices":[{"index":0,"allocated":-5,"reserved":0,"max_allocated":0}]}"#,
            br#"{"kind":"sample","pid":1,"devices":[{"index":0,"allocated":1,"reserved":0,"max_allocated":0,"x":0}]}"#,
            b"\xff\xfe",
        ] {
            assert_eq!(
                parse(bad),
                Err(Refusal::NotAMessage),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        for bad in [
            format!(r#"{{"kind":"sample","pid":1,"devices":[{{"index":0,"allocated":{},"reserved":0,"max_allocated":0}}]}}"#, MAX_BYTES + 1),
            r#"{"kind":"sample","pid":1,"devices":[{"index":0,"allocated":1,"reserved":0,"max_allocated":0,"uuid":"../../x"}]}"#.into(),
            r#"{"kind":"oom","pid":1,"device":0,"snapshot":"../etc/passwd"}"#.into(),
            format!(r#"{{"kind":"error","pid":1,"text":"{}"}}"#, "x".repeat(MAX_TEXT + 1)),
        ] {
            assert_eq!(parse(bad.as_bytes()), Err(Refusal::OutOfRange), "{bad}");
        }
        assert_eq!(shown("a\u{1b}[2Jb"), "a?[2Jb");
    }
}
