//! MIG: a GPU's MIG devices and what is read of each (instance ids,
//! attributes, memory, BAR1, errors), GPU and compute instances, their
//! profiles and possible placements.

use super::{c_bytes, dev_u32, version, wrapped, zeroed, Dev};
use crate::model::mig::{Engines, Instance, Placement, Profile};
use crate::nvml::{check, NvmlCode, Session};
use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError};
use nvml_wrapper::struct_wrappers::device::{BAR1MemoryInfo, DeviceAttributes, MemoryInfo};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// A MIG device's GPU instance id.
pub fn gpu_instance_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetGpuInstanceId))
}

/// A MIG device's compute instance id.
pub fn compute_instance_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    dev_u32(c, sym!(c, nvmlDeviceGetComputeInstanceId))
}

/// The MIG devices of GPU `parent` (MIG mode on), in NVML's order
/// (`nvmlDeviceGetMaxMigDeviceCount`, `nvmlDeviceGetMigDeviceHandleByIndex`);
/// an index NVML cannot hand out is passed over.
pub fn mig_devices<'s>(parent: &Dev<'s>) -> Vec<Dev<'s>> {
    let Ok(count) = wrapped(parent, |d| d.mig_device_count()) else {
        return Vec::new();
    };
    (0..count)
        .filter_map(|i| {
            let m = wrapped(parent, |d| d.mig_device_by_index(i)).ok()?;
            Some(Dev::of(parent.session, &m))
        })
        .collect()
}

/// A MIG device's memory: total, reserved, used and free bytes
/// (nvml-wrapper's `nvmlDeviceGetMemoryInfo_v2`).
pub fn mig_memory(m: &Dev<'_>) -> Result<MemoryInfo, NvmlCode> {
    wrapped(m, |d| d.memory_info())
}

/// What `-q` and the summary table show of one MIG device: its index, its
/// GPU and compute instance, its attributes, its memory and BAR1, and its
/// volatile uncorrected SRAM count where it keeps one.
pub struct MigRead {
    /// NVML's index of the MIG device's handle.
    pub index: Result<u32, NvmlCode>,
    /// Its GPU instance id.
    pub gpu_instance: Result<u32, NvmlCode>,
    /// Its compute instance id.
    pub compute_instance: Result<u32, NvmlCode>,
    /// Its share of the GPU: multiprocessors and engines (`nvmlDeviceGetAttributes_v2`).
    pub attributes: Result<DeviceAttributes, NvmlCode>,
    /// Its memory.
    pub memory: Result<MemoryInfo, NvmlCode>,
    /// Its BAR1 aperture (`nvmlDeviceGetBAR1MemoryInfo`).
    pub bar1: Result<BAR1MemoryInfo, NvmlCode>,
    /// Its volatile uncorrected ECC count (`nvmlDeviceGetTotalEccErrors`).
    pub sram_uncorrected: Result<u64, NvmlCode>,
}

/// Read MIG device `m`.
pub fn mig_device(m: &Dev<'_>) -> MigRead {
    let ecc = (MemoryError::Uncorrected, EccCounter::Volatile);
    MigRead {
        attributes: wrapped(m, |d| d.attributes()),
        memory: mig_memory(m),
        bar1: wrapped(m, |d| d.bar1_memory_info()),
        index: super::index(m),
        gpu_instance: gpu_instance_id(m),
        compute_instance: compute_instance_id(m),
        sram_uncorrected: wrapped(m, |d| d.total_ecc_errors(ecc.0, ecc.1)),
    }
}

/// The UUID of the GPU that holds the MIG device of UUID `mig`
/// (`nvmlDeviceGetHandleByUUID`, `nvmlDeviceGetDeviceHandleFromMigDeviceHandle`).
pub fn mig_parent_uuid(session: &Session, mig: &str) -> Result<String, NvmlCode> {
    let m = super::look_up(session, super::LookUp::Uuid, mig);
    let parent = wrapped(&m, |d| d.mig_parent_device())?;
    super::uuid(&Dev::of(session, &parent))
}

/// A GPU instance of a MIG-enabled GPU (an NVML handle, valid while the
/// session is open).
#[derive(Clone, Copy)]
pub struct GiHandle(nvmlGpuInstance_t);

/// Profile indices tried for GPU and compute instance profiles: NVML's
/// `*_PROFILE_COUNT` grows with drivers, and indices a driver lacks answer an
/// error that the caller skips.
pub const MAX_PROFILE_INDEX: u32 = 32;

/// Most instances read per profile: NVML fills a buffer sized by the
/// profile's instance count; this bounds what a library may claim.
const MAX_INSTANCES: u32 = 64;

/// A C name array as text (up to its first NUL), as [`c_bytes`].
fn c_name(name: &[std::os::raw::c_char]) -> String {
    let bytes: Vec<u8> = name.iter().map(|&c| c as u8).collect();
    c_bytes(&bytes)
}

/// GPU instance profile `index` (`nvmlDeviceGetGpuInstanceProfileInfoV`)
/// with its remaining capacity (`nvmlDeviceGetGpuInstanceRemainingCapacity`).
pub fn gi_profile(c: &Dev<'_>, index: u32) -> Result<Profile, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetGpuInstanceProfileInfoV)?;
    let h = c.handle()?;
    let mut p = versioned!(nvmlGpuInstanceProfileInfo_v2_t, 2);
    // SAFETY: a valid handle and a versioned, initialised out-struct.
    check(unsafe { f(h, index, &mut p) })?;
    let remaining = sym!(c, nvmlDeviceGetGpuInstanceRemainingCapacity)?;
    let engines = Engines {
        sm: p.multiprocessorCount,
        ce: p.copyEngineCount,
        dec: p.decoderCount,
        enc: p.encoderCount,
        jpeg: p.jpegCount,
        ofa: p.ofaCount,
    };
    let of = (p.id, &p.name[..], p.sliceCount, p.instanceCount);
    // SAFETY: a valid handle and its profiles' remaining-capacity function.
    let profile = unsafe { profile(h, remaining, of, engines) };
    Ok(Profile {
        memory_mib: p.memorySizeMB,
        p2p: p.isP2pSupported != 0,
        ..profile
    })
}

/// A profile from what both kinds of profile record say (id, name, slices,
/// instance count, engines), with the remaining capacity that
/// `remaining(parent, id, &mut free)` reports; no memory and no P2P (a GPU
/// instance profile's caller adds them).
///
/// # Safety
/// `parent` must be a live handle of this session and `remaining` NVML's
/// remaining-capacity function for its profiles.
unsafe fn profile<H>(
    parent: H,
    remaining: unsafe extern "C" fn(H, c_uint, *mut c_uint) -> nvmlReturn_t,
    (id, name, slices, total): (u32, &[std::os::raw::c_char], u32, u32),
    engines: Engines,
) -> Profile {
    let mut free: c_uint = 0;
    // SAFETY: a live parent and its remaining-capacity function (the caller's promise), a valid out-pointer.
    let free = check(unsafe { remaining(parent, id, &mut free) }).map(|()| free);
    Profile {
        id,
        name: c_name(name),
        slices,
        total,
        free,
        memory_mib: 0,
        p2p: false,
        engines,
        placements: None,
    }
}

/// The GPU instances of `profile` (`nvmlDeviceGetGpuInstances`), each with
/// its id and placement (`nvmlGpuInstanceGetInfo`).
pub fn gpu_instances(
    c: &Dev<'_>,
    profile: &Profile,
) -> Result<Vec<(GiHandle, Instance)>, NvmlCode> {
    let list = sym!(c, nvmlDeviceGetGpuInstances)?;
    let info = sym!(c, nvmlGpuInstanceGetInfo)?;
    let h = c.handle()?;
    // SAFETY: a valid handle and the buffer and count `read_instances` gives.
    let handles = unsafe { read_instances(profile, |buf, n| list(h, profile.id, buf, n)) }?;
    let of = |i: &nvmlGpuInstanceInfo_t| (i.id, i.profileId, (i.placement.start, i.placement.size));
    // SAFETY: GPU instance handles NVML just returned, and their info function.
    let read = unsafe { instances_of(profile, handles, info, of) }?;
    Ok(read.into_iter().map(|(g, i)| (GiHandle(g), i)).collect())
}

/// Each instance handle's record (`info(handle, &mut record)`), as an
/// instance of `profile`: `of` gives the record's id, profile id and
/// placement.
///
/// # Safety
/// `handles` must be live instance handles of this session and `info`
/// NVML's info function for them, with records of type `T`.
unsafe fn instances_of<H, T: Copy>(
    profile: &Profile,
    handles: Vec<*mut H>,
    info: unsafe extern "C" fn(*mut H, *mut T) -> nvmlReturn_t,
    of: impl Fn(&T) -> (u32, u32, (u32, u32)),
) -> Result<Vec<(*mut H, Instance)>, NvmlCode> {
    handles
        .into_iter()
        .map(|h| {
            let mut record: T = zeroed();
            // SAFETY: a live handle (the caller's promise) and a valid out-record of its type.
            check(unsafe { info(h, &mut record) })?;
            let (id, profile_id, placement) = of(&record);
            Ok((h, instance(profile, id, profile_id, placement)))
        })
        .collect()
}

/// NVML's instance lists: a buffer of handles as long as the profile's
/// instance count (bounded), which `list(buf, count)` fills, saying how many.
///
/// # Safety
/// `list` must pass its arguments to an NVML instance-list function whose
/// records are `*mut H` handles, for a live parent handle.
unsafe fn read_instances<H>(
    profile: &Profile,
    list: impl FnOnce(*mut *mut H, *mut c_uint) -> nvmlReturn_t,
) -> Result<Vec<*mut H>, NvmlCode> {
    let cap = profile.total.clamp(1, MAX_INSTANCES);
    let mut handles: Vec<*mut H> = vec![std::ptr::null_mut(); cap as usize];
    let mut n: c_uint = 0;
    check(list(handles.as_mut_ptr(), &mut n))?;
    handles.truncate((n as usize).min(handles.len()));
    Ok(handles)
}

/// An instance of `profile` at `(start, size)`.
fn instance(profile: &Profile, id: u32, profile_id: u32, (start, size): (u32, u32)) -> Instance {
    Instance {
        id,
        profile_id,
        name: profile.name.clone(),
        start,
        size,
    }
}

/// Compute instance profile `index` of GPU instance `gi`
/// (`nvmlGpuInstanceGetComputeInstanceProfileInfoV`, shared engines) with
/// its remaining capacity.
pub fn ci_profile(c: &Dev<'_>, gi: GiHandle, index: u32) -> Result<Profile, NvmlCode> {
    let f = sym!(c, nvmlGpuInstanceGetComputeInstanceProfileInfoV)?;
    let mut p = versioned!(nvmlComputeInstanceProfileInfo_v2_t, 2);
    let shared = NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED;
    // SAFETY: a GPU instance handle of this session and a versioned out-struct.
    check(unsafe { f(gi.0, index, shared, &mut p) })?;
    let remaining = sym!(c, nvmlGpuInstanceGetComputeInstanceRemainingCapacity)?;
    let engines = Engines {
        sm: p.multiprocessorCount,
        ce: p.sharedCopyEngineCount,
        dec: p.sharedDecoderCount,
        enc: p.sharedEncoderCount,
        jpeg: p.sharedJpegCount,
        ofa: p.sharedOfaCount,
    };
    let of = (p.id, &p.name[..], p.sliceCount, p.instanceCount);
    // SAFETY: a GPU instance handle of this session and its profiles' remaining-capacity function.
    Ok(unsafe { profile(gi.0, remaining, of, engines) })
}

/// The compute instances of `profile` in GPU instance `gi`
/// (`nvmlGpuInstanceGetComputeInstances`, `nvmlComputeInstanceGetInfo_v2`).
pub fn compute_instances(
    c: &Dev<'_>,
    gi: GiHandle,
    profile: &Profile,
) -> Result<Vec<Instance>, NvmlCode> {
    let list = sym!(c, nvmlGpuInstanceGetComputeInstances)?;
    let info = sym!(c, nvmlComputeInstanceGetInfo_v2)?;
    // SAFETY: a GPU instance handle of this session and the buffer and count
    // `read_instances` gives.
    let handles = unsafe { read_instances(profile, |buf, n| list(gi.0, profile.id, buf, n)) }?;
    let of =
        |i: &nvmlComputeInstanceInfo_t| (i.id, i.profileId, (i.placement.start, i.placement.size));
    // SAFETY: compute instance handles NVML just returned, and their info function.
    let read = unsafe { instances_of(profile, handles, info, of) }?;
    Ok(read.into_iter().map(|(_, i)| i).collect())
}

// ---- MIG placements (`mig -lgipp`, `-lcipp`).

/// Most placements read per profile: a GPU has 8 memory slices; this bounds
/// what a library may claim.
const MAX_PLACEMENTS: c_uint = 64;

/// NVML's placement lists: a null buffer asks for the count (SUCCESS); then
/// a buffer of that many records is filled and the count says how many.
///
/// # Safety
/// `call` must pass its arguments to an NVML placement function whose
/// records are `nvmlGpuInstancePlacement_t`-shaped `T`, for a live handle.
unsafe fn read_placements<T: Copy>(
    zero: T,
    mut call: impl FnMut(*mut T, *mut c_uint) -> nvmlReturn_t,
    each: impl Fn(&T) -> Placement,
) -> Result<Vec<Placement>, NvmlCode> {
    let mut n: c_uint = 0;
    check(call(std::ptr::null_mut(), &mut n))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if n > MAX_PLACEMENTS {
        return Err(NvmlCode::INSUFFICIENT_SIZE);
    }
    let mut buf = vec![zero; n as usize];
    let mut got = n;
    check(call(buf.as_mut_ptr(), &mut got))?;
    buf.truncate((got as usize).min(buf.len()));
    Ok(buf.iter().map(each).collect())
}

/// Where GPU instances of profile `profile_id` may sit
/// (`nvmlDeviceGetGpuInstancePossiblePlacements_v2`; nvml-wrapper 0.13's
/// version returns an empty list).
pub fn gi_placements(c: &Dev<'_>, profile_id: u32) -> Result<Vec<Placement>, NvmlCode> {
    let f = sym!(c, nvmlDeviceGetGpuInstancePossiblePlacements_v2)?;
    let h = c.handle()?;
    let zero = nvmlGpuInstancePlacement_t { start: 0, size: 0 };
    // SAFETY: a valid handle; the buffer holds the count NVML gave.
    unsafe {
        read_placements(
            zero,
            |buf, n| f(h, profile_id, buf, n),
            |p| Placement {
                start: p.start,
                size: p.size,
            },
        )
    }
}

/// Where compute instances of profile `profile_id` may sit inside GPU
/// instance `gi` (`nvmlGpuInstanceGetComputeInstancePossiblePlacements`).
pub fn ci_placements(
    c: &Dev<'_>,
    gi: GiHandle,
    profile_id: u32,
) -> Result<Vec<Placement>, NvmlCode> {
    let f = sym!(c, nvmlGpuInstanceGetComputeInstancePossiblePlacements)?;
    let zero = nvmlComputeInstancePlacement_t { start: 0, size: 0 };
    // SAFETY: a GPU instance handle of this session; the buffer holds the
    // count NVML gave.
    unsafe {
        read_placements(
            zero,
            |buf, n| f(gi.0, profile_id, buf, n),
            |p| Placement {
                start: p.start,
                size: p.size,
            },
        )
    }
}
