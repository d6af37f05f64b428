//! System-wide values: the CUDA driver version and the NVML version read
//! without initialising NVML.

use crate::nvml::{check, NvmlCode, Session};
use nvml_wrapper_sys::bindings::*;

/// The CUDA driver version NVML reports (13010 means 13.1): the unversioned
/// `nvmlSystemGetCudaDriverVersion` first (the `_v2` one needs libcuda,
/// which utility-only containers lack), else `_v2`.
pub fn cuda_driver_version(session: &Session) -> Result<i32, NvmlCode> {
    let lib = session.lib();
    let mut result = Err(NvmlCode::FUNCTION_NOT_FOUND);
    for f in [
        lib.nvmlSystemGetCudaDriverVersion.as_ref(),
        lib.nvmlSystemGetCudaDriverVersion_v2.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        let mut v: std::os::raw::c_int = 0;
        // SAFETY: NVML writes one int through the pointer.
        result = check(unsafe { f(&mut v) }).map(|()| v);
        if result.is_ok() {
            break;
        }
    }
    result
}

/// `nvmlSystemGetNVMLVersion` of the library at `path` (the system's
/// `libnvidia-ml.so.1` when `None`), without `nvmlInit`: nvidia-smi prints it
/// when the library and the kernel driver disagree, and init then fails.
pub fn nvml_version_without_init(path: Option<&std::path::Path>) -> Option<String> {
    let name = crate::nvml::lib_name(path);
    // SAFETY: loading the NVML library runs its initialisers, as nvml-wrapper
    // itself does; the symbol is called with a valid buffer and length.
    unsafe {
        let lib = NvmlLib::new(name).ok()?;
        let f = lib.nvmlSystemGetNVMLVersion.as_ref().ok()?;
        let mut buf = [0 as std::os::raw::c_char; 80];
        if f(buf.as_mut_ptr(), buf.len() as u32) != 0 {
            return None;
        }
        let s = std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .into_owned();
        Some(s)
    }
}
