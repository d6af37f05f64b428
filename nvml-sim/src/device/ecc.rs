//! Device getters: ECC, retired pages, remapping.

use super::*;

fn ecc_counts(error_type: u32, counter_type: u32) -> R<&'static str> {
    match (error_type, counter_type) {
        (0, 0) => Ok("corrected_volatile"),
        (0, 1) => Ok("corrected_aggregate"),
        (1, 0) => Ok("uncorrected_volatile"),
        (1, 1) => Ok("uncorrected_aggregate"),
        _ => Err(INVALID_ARGUMENT),
    }
}

fn ecc_set<'a>(c: &'a Ctx, which: &str) -> &'a EccCounts {
    let e = &c.dev.ecc_errors;
    match which {
        "corrected_volatile" => &e.corrected_volatile,
        "corrected_aggregate" => &e.corrected_aggregate,
        "uncorrected_volatile" => &e.uncorrected_volatile,
        _ => &e.uncorrected_aggregate,
    }
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTotalEccErrors(
    device: nvmlDevice_t,
    errorType: nvmlMemoryErrorType_t,
    counterType: nvmlEccCounterType_t,
    eccCounts: *mut c_ulonglong,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetTotalEccErrors", device, |c| {
        let o = nn(eccCounts)?;
        let which = ecc_counts(errorType, counterType)?;
        if let Some(m) = c.mig() {
            // A MIG device counts only its volatile uncorrected errors.
            return match which {
                "uncorrected_volatile" => {
                    o.set(m.ecc_uncorrected_volatile.ok_or(NOT_SUPPORTED)?);
                    Ok(())
                }
                _ => Err(NOT_SUPPORTED),
            };
        }
        let set = ecc_set(c, which);
        o.set(c.val(&set.total)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryErrorCounter(
    device: nvmlDevice_t,
    errorType: nvmlMemoryErrorType_t,
    counterType: nvmlEccCounterType_t,
    locationType: nvmlMemoryLocation_t,
    count: *mut c_ulonglong,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetMemoryErrorCounter", device, |c| {
        let o = nn(count)?;
        let set = ecc_set(c, ecc_counts(errorType, counterType)?);
        let f = match locationType {
            0 => &set.l1_cache,
            1 => &set.l2_cache,
            2 => &set.device_memory,
            3 => &set.register_file,
            4 => &set.texture_memory,
            5 => &set.texture_shm,
            6 => &set.cbu,
            7 => &set.sram,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(c.val(f)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSramEccErrorStatus(
    device: nvmlDevice_t,
    status: *mut nvmlEccSramErrorStatus_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSramEccErrorStatus", device, |c| {
        let o = nn(status)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != SRAM_ECC_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let s = c.dev.sram_ecc_status.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(nvmlEccSramErrorStatus_v1_t {
            version: SRAM_ECC_V1,
            aggregateUncParity: s.aggregate_unc_parity,
            aggregateUncSecDed: s.aggregate_unc_sec_ded,
            aggregateCor: s.aggregate_cor,
            volatileUncParity: s.volatile_unc_parity,
            volatileUncSecDed: s.volatile_unc_sec_ded,
            volatileCor: s.volatile_cor,
            aggregateUncBucketL2: s.aggregate_unc_bucket_l2,
            aggregateUncBucketSm: s.aggregate_unc_bucket_sm,
            aggregateUncBucketPcie: s.aggregate_unc_bucket_pcie,
            aggregateUncBucketMcu: s.aggregate_unc_bucket_mcu,
            aggregateUncBucketOther: s.aggregate_unc_bucket_other,
            bThresholdExceeded: s.threshold_exceeded,
        });
        Ok(())
    })
}

fn retired<'a>(c: &'a Ctx, cause: u32) -> R<(&'a [u64], &'a [u64])> {
    let r = &c.dev.retired_pages;
    let (pages, ts) = match cause {
        0 => (&r.single_bit, &r.single_bit_timestamps),
        1 => (&r.double_bit, &r.double_bit_timestamps),
        _ => return Err(INVALID_ARGUMENT),
    };
    Ok((pages.as_deref().ok_or(NOT_SUPPORTED)?, ts.as_slice()))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRetiredPages(
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    pageCount: *mut c_uint,
    addresses: *mut c_ulonglong,
) -> nvmlReturn_t {
    let fill = is_fill(pageCount, addresses);
    dev_call("nvmlDeviceGetRetiredPages", device, false, fill, |c| {
        let (pages, _) = retired(c, cause)?;
        put_list(pageCount, addresses, pages.iter().copied())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRetiredPages_v2(
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    pageCount: *mut c_uint,
    addresses: *mut c_ulonglong,
    timestamps: *mut c_ulonglong,
) -> nvmlReturn_t {
    let fill = is_fill(pageCount, addresses);
    dev_call("nvmlDeviceGetRetiredPages_v2", device, false, fill, |c| {
        let (pages, ts) = retired(c, cause)?;
        let have = if pageCount.is_null() {
            0
        } else {
            nn(pageCount)?.get() as usize
        };
        put_list(pageCount, addresses, pages.iter().copied())?;
        if !timestamps.is_null() && have >= pages.len() {
            for i in 0..pages.len() {
                // SAFETY: the caller's timestamps buffer has as many elements as addresses.
                unsafe { timestamps.add(i).write(ts.get(i).copied().unwrap_or(0)) };
            }
        }
        Ok(())
    })
}

scalar!(
    nvmlDeviceGetRetiredPagesPendingStatus,
    nvmlEnableState_t,
    |d| d.retired_pages.pending
);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRemappedRows(
    device: nvmlDevice_t,
    corrRows: *mut c_uint,
    uncRows: *mut c_uint,
    isPending: *mut c_uint,
    failureOccurred: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRemappedRows", device, |c| {
        let (a, b, p, f) = (
            nn(corrRows)?,
            nn(uncRows)?,
            nn(isPending)?,
            nn(failureOccurred)?,
        );
        let r = &c.dev.remapped_rows;
        let v = (
            c.val(&r.correctable)?,
            c.val(&r.uncorrectable)?,
            c.val(&r.pending)?,
            c.val(&r.failure)?,
        );
        a.set(v.0);
        b.set(v.1);
        p.set(v.2);
        f.set(v.3);
        Ok(())
    })
}

/// `nvmlRemappedRowsInfo_v2_t` (NVML 13.x header; not in nvml-wrapper-sys 0.10): six counters,
/// no version member.
#[repr(C)]
pub struct NvmlRemappedRowsInfoV2 {
    pub corr_active: c_uint,
    pub corr_inactive: c_uint,
    pub unc_active: c_uint,
    pub unc_inactive: c_uint,
    pub pending: c_uint,
    pub failure: c_uint,
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRemappedRows_v2(
    device: nvmlDevice_t,
    info: *mut NvmlRemappedRowsInfoV2,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRemappedRows_v2", device, |c| {
        let o = nn(info)?;
        let r = &c.dev.remapped_rows;
        o.set(NvmlRemappedRowsInfoV2 {
            corr_active: c.val(&r.correctable)?,
            corr_inactive: c.val(&r.correctable_inactive)?,
            unc_active: c.val(&r.uncorrectable)?,
            unc_inactive: c.val(&r.uncorrectable_inactive)?,
            pending: c.val(&r.pending)?,
            failure: c.val(&r.failure)?,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetRowRemapperHistogram(
    device: nvmlDevice_t,
    values: *mut nvmlRowRemapperHistogramValues_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetRowRemapperHistogram", device, |c| {
        let o = nn(values)?;
        let h = &c.dev.row_remapper_histogram;
        o.set(nvmlRowRemapperHistogramValues_t {
            max: c.val(&h.max)?,
            high: c.val(&h.high)?,
            partial: c.val(&h.partial)?,
            low: c.val(&h.low)?,
            none: c.val(&h.none)?,
        });
        Ok(())
    })
}
