//! `nvq run --torch`: PyTorch's counters, as the channel heard them
//! (`child::torch`), matched to NVML's processes sample by sample.
//!
//! A process's devices are matched to NVML's GPUs by UUID (torch gives each
//! device's; CUDA's ordinals follow `CUDA_VISIBLE_DEVICES` and
//! `CUDA_DEVICE_ORDER`, not NVML's index). Without UUIDs, a process that
//! reported one device and holds memory on one GPU only is matched to it;
//! anything else is left unmatched, never guessed.

use crate::child::torch::channel::Heard;
use crate::child::torch::wire::Device;
use crate::child::torch::Torch;
use crate::model::job::{GpuReading, TorchMem, TorchOom, TorchReport};
use std::collections::BTreeMap;
use std::path::Path;

/// Give each of the job's processes in `ok` PyTorch's latest counters for
/// its GPU. `uuids`: each GPU's UUID by NVML index.
pub fn attach(ok: &mut [GpuReading], uuids: &BTreeMap<u32, String>, heard: &Heard) {
    if heard.latest.is_empty() {
        return;
    }
    // On how many GPUs each PID holds memory in this sample.
    let mut gpus_of: BTreeMap<u32, usize> = BTreeMap::new();
    for r in ok.iter() {
        for p in r.procs.iter().filter(|p| p.job && p.bytes > 0) {
            *gpus_of.entry(p.pid).or_default() += 1;
        }
    }
    for r in ok.iter_mut() {
        let uuid = uuids.get(&r.index).map(|u| bare_uuid(u));
        for p in r.procs.iter_mut().filter(|p| p.job) {
            let Some(devices) = heard.latest.get(&p.pid) else {
                continue;
            };
            let by_uuid = devices
                .iter()
                .find(|d| uuid.is_some() && d.uuid.as_deref().map(bare_uuid) == uuid);
            let alone = || {
                (devices.len() == 1 && devices[0].uuid.is_none() && gpus_of.get(&p.pid) == Some(&1))
                    .then(|| &devices[0])
            };
            p.torch = by_uuid.or_else(alone).map(mem);
        }
    }
}

fn mem(d: &Device) -> TorchMem {
    TorchMem {
        allocated: d.allocated,
        reserved: d.reserved,
        max_allocated: d.max_allocated,
    }
}

/// A UUID without NVML's `GPU-` prefix, in lower case.
fn bare_uuid(u: &str) -> String {
    u.strip_prefix("GPU-").unwrap_or(u).to_ascii_lowercase()
}

/// The report's part: who reported, the out-of-memory errors, each
/// snapshot moved into `bundle` (`--torch-snapshot`); notes on what could
/// not be kept go to `notes`.
pub fn report(
    torch: &Torch,
    heard: &Heard,
    bundle: Option<&Path>,
    notes: &mut Vec<String>,
) -> TorchReport {
    let ooms = heard
        .ooms
        .iter()
        .map(|o| {
            let kept = o.snapshot.as_deref().zip(bundle).and_then(|(name, dir)| {
                torch
                    .keep_snapshot(name, dir)
                    .map_err(|why| {
                        notes.push(format!(
                            "--torch-snapshot: PID {}'s snapshot could not be kept: {}",
                            o.pid,
                            crate::child::shown(&why)
                        ));
                    })
                    .ok()
            });
            TorchOom {
                pid: o.pid,
                device: o.device,
                snapshot: kept.map(|p| crate::child::shown(&p.display().to_string())),
            }
        })
        .collect();
    TorchReport {
        processes: heard.reported.iter().copied().collect(),
        ooms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::ProcReading;

    fn reading(index: u32, pid: u32, bytes: u64) -> GpuReading {
        GpuReading {
            index,
            total: 80 << 30,
            used: bytes,
            procs: vec![ProcReading {
                pid,
                bytes,
                job: true,
                torch: None,
                sm: None,
            }],
            accounting: None,
            memory_derived: false,
        }
    }

    fn dev(index: u32, uuid: Option<&str>, allocated: u64) -> Device {
        Device {
            index,
            uuid: uuid.map(str::to_string),
            allocated,
            reserved: allocated * 2,
            max_allocated: allocated,
        }
    }

    #[test]
    fn devices_match_gpus_by_uuid_not_by_ordinal() {
        let mut heard = Heard::default();
        // Under CUDA_VISIBLE_DEVICES=1,0 the process's device 0 is NVML's GPU 1.
        heard
            .latest
            .insert(7, vec![dev(0, Some("bbbb"), 5), dev(1, Some("aaaa"), 3)]);
        let uuids = BTreeMap::from([(0, "GPU-AAAA".to_string()), (1, "GPU-bbbb".to_string())]);
        let mut ok = vec![reading(0, 7, 10), reading(1, 7, 20)];
        attach(&mut ok, &uuids, &heard);
        assert_eq!(ok[0].procs[0].torch.map(|t| t.allocated), Some(3));
        assert_eq!(ok[1].procs[0].torch.map(|t| t.allocated), Some(5));
    }

    #[test]
    fn without_uuids_only_a_single_device_on_a_single_gpu_is_matched() {
        let mut heard = Heard::default();
        heard.latest.insert(7, vec![dev(0, None, 5)]);
        let mut ok = vec![reading(1, 7, 10)];
        attach(&mut ok, &BTreeMap::new(), &heard);
        assert_eq!(ok[0].procs[0].torch.map(|t| t.allocated), Some(5));
        let mut ok = vec![reading(0, 7, 10), reading(1, 7, 20)];
        attach(&mut ok, &BTreeMap::new(), &heard);
        assert!(ok.iter().all(|r| r.procs[0].torch.is_none()), "not guessed");
    }
}
