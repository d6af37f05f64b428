//! The VM behind a running vGPU, found among the host's processes.
//!
//! NVML names no VM: `nvmlVgpuInstanceGetVmID` gives an id, and nvidia-smi's
//! `VM Name` comes from elsewhere. The public 525.147.01 output (see
//! `tests/vgpu/SOURCES.md`) prints `win10test,debug-threads=on`, which is
//! the value of a QEMU `-name` argument as Proxmox and libvirt pass it
//! (libvirt's with a `guest=` prefix). nvq's hypothesis, unverified
//! (`docs/compat.md`): the VM is the hypervisor process whose command line
//! carries `-uuid <VM ID>` or names the vGPU's mdev device (its UUID, as in
//! `sysfsdev=/sys/bus/mdev/devices/<UUID>`), and its name is that `-name`
//! value, or where it is libvirt's `guest=NAME,...` the `NAME` alone (a
//! public 580.105.06 output on OpenStack prints `instance-00000004`).
//!
//! The processes are read through the host procfs ([`HostProc`],
//! `NVQ_HOST_PROC`). A command line is untrusted text: only one bounded read
//! of it is used (a longer one, or a process gone mid-read, is skipped), and
//! the name is printed through the renderers' `printable`. When several
//! processes match, the one that started first is the VM's (a process
//! started later cannot take over a running VM's name); when none does,
//! `VM Name` is `N/A`.

use super::procinfo::{stat_identity, HostProc};
use std::io::Read;

/// The most of one command line that is read; a longer one is skipped (QEMU's
/// own are a few KiB).
pub const MAX_CMDLINE: u64 = 256 * 1024;

/// A hypervisor process: its VM's name and UUID, and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmProcess {
    /// The VM's name from its `-name` value (`vm_name`).
    pub name: String,
    /// The `-uuid` value, if any.
    pub uuid: Option<String>,
    /// When it started (clock ticks since boot; 0 when unknown).
    pub started: u64,
    args: Vec<String>,
}

/// A command line (`/proc/PID/cmdline`, NUL-separated) as a VM's process,
/// if it names a VM (`-name` or `--name`, with a value).
pub fn parse(raw: &[u8]) -> Option<VmProcess> {
    let args: Vec<String> = raw
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag || a.strip_prefix('-') == Some(flag))
            .and_then(|i| args.get(i + 1))
            .filter(|v| !v.is_empty())
            .cloned()
    };
    let name = vm_name(&value("-name")?);
    Some(VmProcess {
        name,
        uuid: value("-uuid"),
        started: 0,
        args,
    })
}

/// The VM's name in a `-name` value. libvirt's `guest=NAME,debug-threads=on`
/// gives `NAME` (QEMU's `,,` is a literal comma); a value without `guest=`,
/// as Proxmox passes it (`win10test,debug-threads=on`), is the name whole.
/// Both as the public outputs print them (580.105.06 on OpenStack's
/// libvirt, 525.147.01 on Proxmox).
fn vm_name(value: &str) -> String {
    let Some(rest) = value.strip_prefix("guest=") else {
        return value.to_string();
    };
    let mut name = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ',' {
            if chars.peek() != Some(&',') {
                break;
            }
            chars.next();
        }
        name.push(c);
    }
    name
}

impl VmProcess {
    /// Is this the VM of the vGPU whose VM id is `vm_id` (a UUID) and whose
    /// mdev UUID is `mdev`? Empty ids match nothing.
    pub fn runs(&self, vm_id: Option<&str>, mdev: Option<&str>) -> bool {
        let by_uuid = match (vm_id.filter(|v| !v.is_empty()), &self.uuid) {
            (Some(id), Some(u)) => id.eq_ignore_ascii_case(u),
            _ => false,
        };
        let by_mdev = mdev.filter(|m| m.len() >= 32).is_some_and(|m| {
            let m = m.to_ascii_lowercase();
            self.args
                .iter()
                .any(|a| a.to_ascii_lowercase().contains(&m))
        });
        by_uuid || by_mdev
    }
}

/// The ids a vGPU's VM is found by: NVML's VM id when it is a UUID, and
/// the vGPU's mdev UUID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    /// `nvmlVgpuInstanceGetVmID`, when of UUID type.
    pub vm_id: Option<String>,
    /// `nvmlVgpuInstanceGetMdevUUID`.
    pub mdev: Option<String>,
}

/// Offer `vm` for each of `wanted`: it takes a slot of `best` when it runs
/// that VM and started before the slot's process (or the slot is empty).
/// Only what is printed is kept, so memory stays bounded by the number of
/// vGPUs whatever the host's processes are.
pub fn offer(best: &mut [Option<VmProcess>], wanted: &[Wanted], vm: &VmProcess) {
    for (slot, w) in best.iter_mut().zip(wanted) {
        let earlier = slot.as_ref().map_or(true, |b| vm.started < b.started);
        if earlier && vm.runs(w.vm_id.as_deref(), w.mdev.as_deref()) {
            *slot = Some(VmProcess {
                args: Vec::new(),
                ..vm.clone()
            });
        }
    }
}

/// The VM process of each of `wanted` among the processes of `host` (in PID
/// order; of several, the first started).
pub fn scan(host: &HostProc, wanted: &[Wanted]) -> Vec<Option<VmProcess>> {
    let mut best = vec![None; wanted.len()];
    if wanted.iter().all(|w| *w == Wanted::default()) {
        return best;
    }
    for pid in host.pids() {
        let mut raw = Vec::new();
        let Ok(f) = host.open_file(pid, "cmdline") else {
            continue;
        };
        if f.take(MAX_CMDLINE + 1).read_to_end(&mut raw).is_err() || raw.len() as u64 > MAX_CMDLINE
        {
            continue;
        }
        let Some(mut vm) = parse(&raw) else {
            continue;
        };
        // Gone by now: not a VM that runs.
        let Ok(stat) = host.read(pid, "stat") else {
            continue;
        };
        vm.started = stat_identity(&stat).map_or(0, |(_, s)| s);
        offer(&mut best, wanted, &vm);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(args: &[&str]) -> Vec<u8> {
        args.join("\0").into_bytes()
    }

    #[test]
    fn libvirt_and_proxmox_names() {
        let v = parse(&cmd(&[
            "qemu",
            "-name",
            "guest=vm1,debug-threads=on",
            "-uuid",
            "AB",
        ]))
        .unwrap();
        assert_eq!(v.name, "vm1");
        assert_eq!(v.uuid.as_deref(), Some("AB"));
        let v = parse(&cmd(&["q", "-name", "guest=a,,b,x=y"])).unwrap();
        assert_eq!(v.name, "a,b", "QEMU's doubled comma is a comma");
        let v = parse(&cmd(&[
            "kvm",
            "-id",
            "101",
            "-name",
            "win10test,debug-threads=on",
        ]))
        .unwrap();
        assert_eq!(v.name, "win10test,debug-threads=on");
        assert_eq!(v.uuid, None);
        assert!(parse(&cmd(&["bash", "-c", "x"])).is_none());
        assert!(parse(&cmd(&["qemu", "-name"])).is_none());
        assert_eq!(parse(&cmd(&["qemu", "--name", "x"])).unwrap().name, "x");
    }

    #[test]
    fn matches_by_vm_uuid_or_mdev_device() {
        let mdev = "00000000-0000-0000-0000-000000000101";
        let dev = format!("vfio-pci,sysfsdev=/sys/bus/mdev/devices/{mdev},id=hostpci0");
        let v = parse(&cmd(&[
            "kvm", "-name", "w", "-uuid", "f267aaaa", "-device", &dev,
        ]))
        .unwrap();
        assert!(v.runs(None, Some(mdev)));
        assert!(v.runs(Some("F267AAAA"), None));
        assert!(!v.runs(Some(""), Some("")));
        assert!(!v.runs(Some("other"), Some("00000000-0000-0000-0000-000000000102")));
    }

    #[test]
    fn the_first_started_wins_and_only_what_is_printed_is_kept() {
        let mut late = parse(&cmd(&["q", "-name", "late", "-uuid", "u"])).unwrap();
        late.started = 9;
        let mut early = parse(&cmd(&["q", "-name", "early", "-uuid", "u"])).unwrap();
        early.started = 1;
        let wanted = [
            Wanted {
                vm_id: Some("u".into()),
                mdev: None,
            },
            Wanted::default(),
        ];
        let mut best = vec![None, None];
        offer(&mut best, &wanted, &late);
        offer(&mut best, &wanted, &early);
        let chosen = best[0].as_ref().unwrap();
        assert_eq!(chosen.name, "early");
        assert!(chosen.args.is_empty());
        assert!(best[1].is_none(), "no ids: nothing matches");
        offer(&mut best, &wanted, &late);
        assert_eq!(best[0].as_ref().unwrap().name, "early");
    }
}
