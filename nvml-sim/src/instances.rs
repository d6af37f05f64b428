//! MIG GPU and compute instances: profiles, instance handles, their info
//! (`nvidia-smi mig -lgi/-lci/-lgip/-lcip`). Scenario keys:
//! `[[device.gpu_instance_profile]]` (with `[[...compute_instance_profile]]`)
//! and `[[device.gpu_instance]]` (with `[[...compute_instance]]`).

use crate::call::*;
use crate::scenario::{
    Instance, InstanceProfile, MAX_COMPUTE_INSTANCES, MAX_DEVICES, MAX_GPU_INSTANCES,
};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// GPU instance handles: device `i`'s instance `j` is `GI_SPACE + i*8 + j`.
static GI_SPACE: [u8; MAX_DEVICES * MAX_GPU_INSTANCES] = [0; MAX_DEVICES * MAX_GPU_INSTANCES];
/// Compute instance handles: `CI_SPACE + (i*8 + j)*8 + k`.
static CI_SPACE: [u8; MAX_DEVICES * MAX_GPU_INSTANCES * MAX_COMPUTE_INSTANCES] =
    [0; MAX_DEVICES * MAX_GPU_INSTANCES * MAX_COMPUTE_INSTANCES];

fn gi_handle(i: usize, j: usize) -> nvmlGpuInstance_t {
    GI_SPACE.as_ptr().wrapping_add(i * MAX_GPU_INSTANCES + j) as nvmlGpuInstance_t
}

fn ci_handle(i: usize, j: usize, k: usize) -> nvmlComputeInstance_t {
    CI_SPACE
        .as_ptr()
        .wrapping_add((i * MAX_GPU_INSTANCES + j) * MAX_COMPUTE_INSTANCES + k)
        as nvmlComputeInstance_t
}

/// A handle's offset in its block, or None when it is not one.
fn offset(p: usize, base: *const u8, len: usize) -> Option<usize> {
    let base = base as usize;
    (p >= base && p < base + len).then(|| p - base)
}

/// (device, GPU instance) of a GPU instance handle.
fn gi_of(h: nvmlGpuInstance_t) -> R<(usize, usize)> {
    let off = offset(h as usize, GI_SPACE.as_ptr(), GI_SPACE.len()).ok_or(INVALID_ARGUMENT)?;
    Ok((off / MAX_GPU_INSTANCES, off % MAX_GPU_INSTANCES))
}

/// (device, GPU instance, compute instance) of a compute instance handle.
fn ci_of(h: nvmlComputeInstance_t) -> R<(usize, usize, usize)> {
    let off = offset(h as usize, CI_SPACE.as_ptr(), CI_SPACE.len()).ok_or(INVALID_ARGUMENT)?;
    let k = off % MAX_COMPUTE_INSTANCES;
    let gi = off / MAX_COMPUTE_INSTANCES;
    Ok((gi / MAX_GPU_INSTANCES, gi % MAX_GPU_INSTANCES, k))
}

/// The GPU must be in MIG mode for instances to exist.
fn mig_on(c: &Ctx) -> R {
    match c.val(&c.dev.mig.current) {
        Ok(1) => Ok(()),
        _ => Err(NOT_SUPPORTED),
    }
}

/// A versioned profile-info struct must carry its size and version 2.
fn check_version<T>(got: u32) -> R {
    if got == (std::mem::size_of::<T>() as u32) | (2 << 24) {
        Ok(())
    } else {
        Err(ARGUMENT_VERSION_MISMATCH)
    }
}

/// Free capacity of `p`: the scenario's, or its maximum less the instances of it.
fn free(p: &InstanceProfile, existing: &[Instance]) -> u32 {
    p.free.unwrap_or_else(|| {
        let used = existing.iter().filter(|i| i.profile_id == p.id).count();
        p.instances
            .saturating_sub(u32::try_from(used).unwrap_or(u32::MAX))
    })
}

/// Write the handles of `items` whose profile is `profile` (NVML's
/// fixed-array protocol: the buffer holds the profile's maximum).
fn put_handles<H>(
    items: &[Instance],
    profile: &InstanceProfile,
    out: *mut H,
    count: *mut c_uint,
    handle: impl Fn(usize) -> H,
) -> R {
    let n = nn(count)?;
    if out.is_null() {
        return Err(INVALID_ARGUMENT);
    }
    let mut k = 0usize;
    for (j, _) in items
        .iter()
        .enumerate()
        .filter(|(_, g)| g.profile_id == profile.id)
    {
        if k >= profile.instances as usize {
            return Err(INSUFFICIENT_SIZE);
        }
        // SAFETY: the caller's buffer holds the profile's instance count, and
        // `k` is below it.
        unsafe { out.add(k).write(handle(j)) };
        k += 1;
    }
    n.set(u32::try_from(k).unwrap_or(0));
    Ok(())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceProfileInfoV(
    device: nvmlDevice_t,
    profile: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_v2_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuInstanceProfileInfoV", device, |c| {
        let o = nn(info)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        check_version::<nvmlGpuInstanceProfileInfo_v2_t>(unsafe { (*o.ptr()).version })?;
        let p = c
            .dev
            .gpu_instance_profile
            .iter()
            .find(|p| p.index == profile)
            .ok_or(NOT_SUPPORTED)?;
        let mut v: nvmlGpuInstanceProfileInfo_v2_t = o.get();
        v.id = p.id;
        v.isP2pSupported = u32::from(p.p2p);
        v.sliceCount = p.slices;
        v.instanceCount = p.instances;
        v.multiprocessorCount = p.sm;
        v.copyEngineCount = p.ce;
        v.decoderCount = p.dec;
        v.encoderCount = p.enc;
        v.jpegCount = p.jpeg;
        v.ofaCount = p.ofa;
        v.memorySizeMB = p.memory_mib;
        fill_chars(&mut v.name, &p.name);
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceRemainingCapacity(
    device: nvmlDevice_t,
    profileId: c_uint,
    count: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuInstanceRemainingCapacity", device, |c| {
        let o = nn(count)?;
        mig_on(c)?;
        let p = c
            .dev
            .gpu_instance_profile
            .iter()
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        o.set(free(p, &c.dev.gpu_instance));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function (`gpuInstances` holds the profile's
/// instance count), and a handle is one this library handed out. Null
/// pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstances(
    device: nvmlDevice_t,
    profileId: c_uint,
    gpuInstances: *mut nvmlGpuInstance_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuInstances", device, |c| {
        mig_on(c)?;
        let i = c.target.gpu();
        let p = (c.dev.gpu_instance_profile.iter())
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        put_handles(&c.dev.gpu_instance, p, gpuInstances, count, |j| {
            gi_handle(i, j)
        })
    })
}

/// A call on a GPU instance handle: its device's faults and loss apply.
fn gi_fn(
    sym: &'static str,
    h: nvmlGpuInstance_t,
    f: impl FnOnce(&Ctx, usize, &Instance) -> R,
) -> nvmlReturn_t {
    match gi_of(h) {
        Ok((i, j)) => dev_fn(sym, device_handle(i), |c| {
            mig_on(c)?;
            let g = c.dev.gpu_instance.get(j).ok_or(INVALID_ARGUMENT)?;
            f(c, j, g)
        }),
        Err(e) => e,
    }
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpuInstanceGetInfo(
    gpuInstance: nvmlGpuInstance_t,
    info: *mut nvmlGpuInstanceInfo_t,
) -> nvmlReturn_t {
    gi_fn("nvmlGpuInstanceGetInfo", gpuInstance, |c, _, g| {
        nn(info)?.set(nvmlGpuInstanceInfo_t {
            device: device_handle(c.target.gpu()),
            id: g.id,
            profileId: g.profile_id,
            placement: nvmlGpuInstancePlacement_t {
                start: g.start,
                size: g.size,
            },
        });
        Ok(())
    })
}

/// The compute instance profiles of GPU instance `g`'s profile.
fn ci_profiles<'a>(c: &'a Ctx, g: &Instance) -> &'a [InstanceProfile] {
    c.dev
        .gpu_instance_profile
        .iter()
        .find(|p| p.id == g.profile_id)
        .map_or(&[], |p| p.compute_instance_profile.as_slice())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceProfileInfoV(
    gpuInstance: nvmlGpuInstance_t,
    profile: c_uint,
    engProfile: c_uint,
    info: *mut nvmlComputeInstanceProfileInfo_v2_t,
) -> nvmlReturn_t {
    let sym = "nvmlGpuInstanceGetComputeInstanceProfileInfoV";
    gi_fn(sym, gpuInstance, |c, _, g| {
        let o = nn(info)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        check_version::<nvmlComputeInstanceProfileInfo_v2_t>(unsafe { (*o.ptr()).version })?;
        if engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED {
            return Err(NOT_SUPPORTED);
        }
        let p = ci_profiles(c, g)
            .iter()
            .find(|p| p.index == profile)
            .ok_or(NOT_SUPPORTED)?;
        let mut v: nvmlComputeInstanceProfileInfo_v2_t = o.get();
        v.id = p.id;
        v.sliceCount = p.slices;
        v.instanceCount = p.instances;
        v.multiprocessorCount = p.sm;
        v.sharedCopyEngineCount = p.ce;
        v.sharedDecoderCount = p.dec;
        v.sharedEncoderCount = p.enc;
        v.sharedJpegCount = p.jpeg;
        v.sharedOfaCount = p.ofa;
        fill_chars(&mut v.name, &p.name);
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceRemainingCapacity(
    gpuInstance: nvmlGpuInstance_t,
    profileId: c_uint,
    count: *mut c_uint,
) -> nvmlReturn_t {
    let sym = "nvmlGpuInstanceGetComputeInstanceRemainingCapacity";
    gi_fn(sym, gpuInstance, |c, _, g| {
        let o = nn(count)?;
        let p = ci_profiles(c, g)
            .iter()
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        o.set(free(p, &g.compute_instance));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function (`computeInstances` holds the
/// profile's instance count), and a handle is one this library handed out.
/// Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstances(
    gpuInstance: nvmlGpuInstance_t,
    profileId: c_uint,
    computeInstances: *mut nvmlComputeInstance_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    let sym = "nvmlGpuInstanceGetComputeInstances";
    gi_fn(sym, gpuInstance, |c, j, g| {
        let i = c.target.gpu();
        let p = (ci_profiles(c, g).iter())
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        put_handles(&g.compute_instance, p, computeInstances, count, |k| {
            ci_handle(i, j, k)
        })
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlComputeInstanceGetInfo_v2(
    computeInstance: nvmlComputeInstance_t,
    info: *mut nvmlComputeInstanceInfo_t,
) -> nvmlReturn_t {
    let sym = "nvmlComputeInstanceGetInfo_v2";
    match ci_of(computeInstance) {
        Ok((i, j, k)) => gi_fn(sym, gi_handle(i, j), |c, _, g| {
            let ci = g.compute_instance.get(k).ok_or(INVALID_ARGUMENT)?;
            nn(info)?.set(nvmlComputeInstanceInfo_t {
                device: device_handle(c.target.gpu()),
                gpuInstance: gi_handle(i, j),
                id: ci.id,
                profileId: ci.profile_id,
                placement: nvmlComputeInstancePlacement_t {
                    start: ci.start,
                    size: ci.size,
                },
            });
            Ok(())
        }),
        Err(e) => e,
    }
}

// ---- Possible placements (`nvidia-smi mig -lgipp`, `-lcipp`), from each
// profile's `placements` and `placement_size`.

/// NVML's placement-list protocol: a null buffer gets the count (SUCCESS);
/// a buffer is filled with every placement (it must hold the count).
fn put_placements<T>(
    p: &InstanceProfile,
    out: *mut T,
    count: *mut c_uint,
    make: impl Fn(u32, u32) -> T,
) -> R {
    let n = nn(count)?;
    let starts = p.placements.as_ref().ok_or(NOT_SUPPORTED)?;
    let size = p.placement_size.unwrap_or(p.slices);
    n.set(u32::try_from(starts.len()).map_err(|_| UNKNOWN)?);
    if out.is_null() {
        return Ok(());
    }
    for (k, &start) in starts.iter().enumerate() {
        // SAFETY: the caller's buffer holds the count this call reports.
        unsafe { out.add(k).write(make(start, size)) };
    }
    Ok(())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function (`placements` is null or holds the
/// count a null call reported), and a handle is one this library handed
/// out. Null pointers and unknown handles get INVALID_ARGUMENT.
///
/// Answered whether or not MIG mode is on, as NVML documents.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    device: nvmlDevice_t,
    profileId: c_uint,
    placements: *mut nvmlGpuInstancePlacement_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    let sym = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
    dev_fn(sym, device, |c| {
        let p = (c.dev.gpu_instance_profile.iter())
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        put_placements(p, placements, count, |start, size| {
            nvmlGpuInstancePlacement_t { start, size }
        })
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function (`placements` is null or holds the
/// count a null call reported), and a handle is one this library handed
/// out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstancePossiblePlacements(
    gpuInstance: nvmlGpuInstance_t,
    profileId: c_uint,
    placements: *mut nvmlComputeInstancePlacement_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    let sym = "nvmlGpuInstanceGetComputeInstancePossiblePlacements";
    gi_fn(sym, gpuInstance, |c, _, g| {
        let p = (ci_profiles(c, g).iter())
            .find(|p| p.id == profileId)
            .ok_or(INVALID_ARGUMENT)?;
        put_placements(p, placements, count, |start, size| {
            nvmlComputeInstancePlacement_t { start, size }
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const PROFILE: &str =
        "[[device.gpu_instance_profile]]\nindex = 0\nid = 19\nname = \"MIG 1g.10gb\"\n\
                           slices = 1\ninstances = 2\n";

    fn parses(instances: &str) -> bool {
        let text =
            format!("[[device]]\nmig = {{ current = 1, pending = 1 }}\n{PROFILE}{instances}");
        Scenario::parse(&text, "t").is_ok()
    }

    #[test]
    fn scenarios_check_their_instances() {
        let gi = |id: u32, profile: u32| {
            format!("[[device.gpu_instance]]\nid = {id}\nprofile_id = {profile}\nstart = {id}\nsize = 1\n")
        };
        assert!(parses(&format!("{}{}", gi(1, 19), gi(2, 19))));
        // More instances than the profile allows would overrun NVML's buffer.
        assert!(!parses(&format!("{}{}{}", gi(1, 19), gi(2, 19), gi(3, 19))));
        assert!(!parses(&gi(1, 14)), "a profile not declared");
        let ci = "[[device.gpu_instance.compute_instance]]\nid = 0\nprofile_id = 0\n";
        assert!(
            !parses(&format!("{}{ci}", gi(1, 19))),
            "a compute profile not declared"
        );
    }
}
