//! What serde cannot check: the scenario's values against each other and against NVML's limits
//! (known symbols, codes, instance profiles, vGPU types, topology, lists).

use super::device::Device;
use super::machine::{Scenario, MAX_UNITS};
use super::tables::{
    parse_bus_id, parse_id_list, Fault, Instance, InstanceProfile, Process, Timeline, UsedMemory,
};
use super::values::{
    Series, MAX_COMPUTE_INSTANCES, MAX_DEVICES, MAX_GPU_INSTANCES, MAX_MIG_INSTANCES,
};
use crate::symbols::{EXTRA_SYMBOLS, SYMBOLS};
use std::collections::BTreeMap;

/// NVML's bound on a GPU's vGPU types and instances (the driver's own lists
/// stay far below it; the scenario check keeps the simulator inside it).
const MAX_VGPUS: usize = 256;

/// The scenario check of one device's vGPU keys.
fn vgpus(i: usize, d: &Device) -> Result<(), String> {
    let types = d.vgpu_type.as_deref().unwrap_or_default();
    if types.len() > MAX_VGPUS || d.vgpu.len() > MAX_VGPUS {
        return Err(format!(
            "device {i}: at most {MAX_VGPUS} vGPU types and vGPUs"
        ));
    }
    for v in &d.vgpu {
        if v.id == 0 {
            return Err(format!("device {i}: vGPU instance id 0 is not an instance"));
        }
        if !types.iter().any(|t| t.id == v.type_id) {
            return Err(format!(
                "device {i}: vGPU {} is of type {}, which the device's vgpu_type list lacks",
                v.id, v.type_id
            ));
        }
    }
    Ok(())
}

/// Every instance has a declared profile, and no profile more instances
/// than its `instances` (NVML fills a buffer of that size with handles).
fn check_instances(
    profiles: &[InstanceProfile],
    items: &[Instance],
    ctx: &str,
) -> Result<(), String> {
    for p in profiles {
        let n = items.iter().filter(|i| i.profile_id == p.id).count();
        if n > p.instances as usize {
            return Err(format!(
                "{ctx}: {n} instances of profile {} exceed its instances = {}",
                p.id, p.instances
            ));
        }
    }
    match items
        .iter()
        .find(|i| !profiles.iter().any(|p| p.id == i.profile_id))
    {
        Some(i) => Err(format!(
            "{ctx}: instance {} has undeclared profile {}",
            i.id, i.profile_id
        )),
        None => Ok(()),
    }
}

/// GPM keys are metric ids (1..=210) and no series is an empty list.
fn check_gpm(gpm: &BTreeMap<String, Series<f64>>, ctx: &str) -> Result<(), String> {
    for (k, v) in gpm {
        if !k
            .trim()
            .parse::<u32>()
            .is_ok_and(|id| (1..=210).contains(&id))
        {
            return Err(format!(
                "{ctx}: gpm key {k:?} is not a GPM metric id (1 to 210)"
            ));
        }
        if matches!(v, Series::Many(l) if l.is_empty()) {
            return Err(format!("{ctx}: gpm.{k} is an empty list"));
        }
    }
    Ok(())
}

impl Timeline {
    fn check(&self, ctx: &str) -> Result<(), String> {
        if self.points.is_empty() {
            return Err(format!("{ctx}: used_timeline needs at least one point"));
        }
        if self.points.windows(2).any(|w| w[1].0 < w[0].0) {
            return Err(format!("{ctx}: used_timeline's times must not go back"));
        }
        Ok(())
    }
}

impl Scenario {
    pub(super) fn validate(&self) -> Result<(), String> {
        for (i, d) in self.device.iter().enumerate() {
            if let Some(tl) = &d.memory.used_timeline {
                tl.check(&format!("device {i}"))?;
            }
            vgpus(i, d)?;
            let chips = d.bridge_chips.as_deref().unwrap_or_default();
            if chips.len() > 128 {
                return Err(format!(
                    "device {i}: {} bridge chips exceed NVML's 128",
                    chips.len()
                ));
            }
            if let Some(b) = chips.iter().find(|b| b.kind != "PLX" && b.kind != "BR04") {
                return Err(format!(
                    "device {i}: bridge chip type {:?} is neither PLX nor BR04",
                    b.kind
                ));
            }
        }
        if self.unit.len() > MAX_UNITS {
            return Err(format!(
                "{} units exceed the maximum of {MAX_UNITS}",
                self.unit.len()
            ));
        }
        for (i, u) in self.unit.iter().enumerate() {
            if u.fan.len() > 24 {
                return Err(format!("unit {i}: {} fans exceed NVML's 24", u.fan.len()));
            }
            if let Some(d) = u.devices.iter().find(|&&d| d as usize >= self.device.len()) {
                return Err(format!("unit {i}: device {d} is not in the scenario"));
            }
            if let Some(c) = u
                .led_color
                .as_deref()
                .filter(|c| *c != "GREEN" && *c != "AMBER")
            {
                return Err(format!(
                    "unit {i}: led_color {c:?} is neither GREEN nor AMBER"
                ));
            }
        }
        if self.device.len() > MAX_DEVICES {
            return Err(format!(
                "{} devices exceed the maximum of {MAX_DEVICES}",
                self.device.len()
            ));
        }
        if let Some(c) = &self.init_fault {
            c.value().map_err(|e| format!("init_fault: {e}"))?;
        }
        let known = |f: &str| SYMBOLS.contains(&f) || EXTRA_SYMBOLS.contains(&f);
        for f in &self.absent_functions {
            if !known(f) {
                return Err(format!("absent_functions: unknown NVML function {f:?}"));
            }
        }
        for (f, ms) in &self.latency.functions {
            if !known(f) {
                return Err(format!("latency: unknown NVML function {f:?}"));
            }
            if !ms.is_finite() || *ms < 0.0 {
                return Err(format!(
                    "latency: {f}: {ms} is not a number of milliseconds"
                ));
            }
        }
        let check_faults = |faults: &[Fault], ctx: &str| -> Result<(), String> {
            for f in faults {
                if !known(&f.function) {
                    return Err(format!(
                        "{ctx} fault: unknown NVML function {:?}",
                        f.function
                    ));
                }
                if let Some(c) = &f.code {
                    c.value()
                        .map_err(|e| format!("{ctx} fault on {}: {e}", f.function))?;
                }
            }
            Ok(())
        };
        check_faults(&self.fault, "top-level")?;
        for (i, d) in self.device.iter().enumerate() {
            let Some(t) = &d.topology else { continue };
            for (what, list) in [
                ("cpu_affinity", &t.cpu_affinity),
                ("memory_affinity", &t.memory_affinity),
            ] {
                if list.as_deref().is_some_and(|l| parse_id_list(l).is_none()) {
                    return Err(format!(
                        "device {i} topology.{what}: not a list like \"0-23,48\""
                    ));
                }
            }
            for b in t.nvlink.iter().flatten() {
                if b.remote_links
                    .as_ref()
                    .is_some_and(|r| r.len() != b.links as usize)
                {
                    return Err(format!(
                        "device {i} topology.nvlink: remote_links needs one number per link"
                    ));
                }
                match (b.peer, &b.switch) {
                    (Some(p), None)
                        if !b.inactive && (p as usize) < self.device.len() && p as usize != i => {}
                    (None, Some(bus)) if !b.inactive && parse_bus_id(bus).is_some() => {}
                    (None, None) if b.inactive && b.remote_links.is_none() => {}
                    _ => {
                        return Err(format!(
                            "device {i} topology.nvlink: each bond needs another device's index as peer, \
                             or an NVSwitch's PCI bus id as switch, or inactive = true alone"
                        ))
                    }
                }
            }
        }
        let check_procs = |ps: &[Process], ctx: &str| -> Result<(), String> {
            for p in ps {
                if let Some(c) = &p.name_error {
                    c.value()
                        .map_err(|e| format!("{ctx} pid {}: name_error: {e}", p.pid))?;
                }
                for (key, m) in [
                    ("used_memory", &p.used_memory),
                    ("cc_protected_memory", &p.cc_protected_memory),
                ] {
                    if let Some(UsedMemory::Text(t)) = m {
                        if !t.eq_ignore_ascii_case("unavailable") && !t.eq_ignore_ascii_case("n/a")
                        {
                            return Err(format!(
                                "{ctx} pid {}: {key} must be a number of bytes or \"unavailable\", got {t:?}",
                                p.pid
                            ));
                        }
                    }
                }
            }
            Ok(())
        };
        check_procs(&self.process, "[[process]]")?;
        for (i, d) in self.device.iter().enumerate() {
            let ctx = format!("device {i}");
            check_faults(&d.fault, &ctx)?;
            check_procs(&d.process, &ctx)?;
            check_procs(&d.graphics_process, &ctx)?;
            check_procs(&d.mps_process, &ctx)?;
            if d.gpu_instance.len() > MAX_GPU_INSTANCES
                || d.gpu_instance
                    .iter()
                    .any(|g| g.compute_instance.len() > MAX_COMPUTE_INSTANCES)
            {
                return Err(format!(
                    "{ctx}: at most {MAX_GPU_INSTANCES} GPU instances of at most \
                     {MAX_COMPUTE_INSTANCES} compute instances each"
                ));
            }
            check_instances(&d.gpu_instance_profile, &d.gpu_instance, &ctx)?;
            for g in &d.gpu_instance {
                let profiles = d
                    .gpu_instance_profile
                    .iter()
                    .find(|p| p.id == g.profile_id)
                    .map_or(&[][..], |p| &p.compute_instance_profile);
                let ctx = format!("{ctx} GPU instance {}", g.id);
                check_instances(profiles, &g.compute_instance, &ctx)?;
            }
            if d.mig_instance.len() > MAX_MIG_INSTANCES {
                return Err(format!(
                    "{ctx}: {} MIG instances exceed the maximum of {MAX_MIG_INSTANCES}",
                    d.mig_instance.len()
                ));
            }
            check_gpm(&d.gpm, &ctx)?;
            for m in &d.mig_instance {
                check_gpm(&m.gpm, &ctx)?;
            }
            for (k, v) in &d.field_values {
                let id = k.split(':').next().unwrap_or("");
                if id.trim().parse::<u32>().is_err() {
                    return Err(format!("{ctx}: field_values key {k:?} is not a field id"));
                }
                if let Series::Many(l) = v {
                    if l.is_empty() {
                        return Err(format!("{ctx}: field_values.{k} is an empty list"));
                    }
                }
            }
            if let Some(fab) = &d.fabric {
                if let Some(c) = &fab.status {
                    c.value()
                        .map_err(|e| format!("{ctx}: fabric.status: {e}"))?;
                }
            }
        }
        Ok(())
    }
}
