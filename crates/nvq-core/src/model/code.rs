//! NVML return codes as nvq sees them, and the text NVML gives each one.
//! (The conversion from nvml-wrapper's error type lives in `crate::nvml`.)

/// An NVML return code (`nvmlReturn_t`). Codes that only exist on the nvq side
/// (a symbol missing from the library) are mapped to the NVML code that means
/// the same thing, so that every failure carries exactly one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvmlCode(pub u32);

impl NvmlCode {
    /// `NVML_SUCCESS`: the call worked.
    pub const SUCCESS: Self = Self(0);
    /// `NVML_ERROR_UNINITIALIZED`: NVML was not initialised (`nvmlInit` not called or failed).
    pub const UNINITIALIZED: Self = Self(1);
    /// `NVML_ERROR_INVALID_ARGUMENT`: a bad argument, such as an index past the last GPU.
    pub const INVALID_ARGUMENT: Self = Self(2);
    /// `NVML_ERROR_NOT_SUPPORTED`: this GPU or driver has no such query; nvidia-smi prints `[N/A]`.
    pub const NOT_SUPPORTED: Self = Self(3);
    /// `NVML_ERROR_NO_PERMISSION`: the caller lacks the privilege (often root) the query needs.
    pub const NO_PERMISSION: Self = Self(4);
    /// `NVML_ERROR_NOT_FOUND`: the object asked for (a process, a MIG instance) does not exist.
    pub const NOT_FOUND: Self = Self(6);
    /// `NVML_ERROR_INSUFFICIENT_SIZE`: the buffer passed was too small; ask again with a bigger one.
    pub const INSUFFICIENT_SIZE: Self = Self(7);
    /// `NVML_ERROR_DRIVER_NOT_LOADED`: the NVIDIA kernel driver is not running.
    pub const DRIVER_NOT_LOADED: Self = Self(9);
    /// `NVML_ERROR_TIMEOUT`: the driver did not answer in time (nvq also uses it for a GPU that missed its deadline).
    pub const TIMEOUT: Self = Self(10);
    /// `NVML_ERROR_LIBRARY_NOT_FOUND`: `libnvidia-ml.so` could not be loaded.
    pub const LIBRARY_NOT_FOUND: Self = Self(12);
    /// `NVML_ERROR_FUNCTION_NOT_FOUND`: the loaded library lacks the symbol (an older driver).
    pub const FUNCTION_NOT_FOUND: Self = Self(13);
    /// `NVML_ERROR_GPU_IS_LOST`: the GPU fell off the bus or stopped responding.
    pub const GPU_IS_LOST: Self = Self(15);
    /// `NVML_ERROR_RESET_REQUIRED`: the GPU needs a reset before it answers again.
    pub const RESET_REQUIRED: Self = Self(16);
    /// `NVML_ERROR_LIB_RM_VERSION_MISMATCH`: the library and the kernel driver are different
    /// versions (typically after a driver upgrade without a reboot).
    pub const LIB_RM_VERSION_MISMATCH: Self = Self(18);
    /// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`: a versioned struct is newer or older than the
    /// driver understands.
    pub const ARGUMENT_VERSION_MISMATCH: Self = Self(25);
    /// `NVML_ERROR_DEPRECATED`: the driver no longer provides this functionality.
    pub const DEPRECATED: Self = Self(26);
    /// `NVML_ERROR_GPU_NOT_FOUND`: no GPU matches the index, UUID or bus id given.
    pub const GPU_NOT_FOUND: Self = Self(28);
    /// `NVML_ERROR_UNKNOWN`: any other failure; also what nvq maps an unexpected error to.
    pub const UNKNOWN: Self = Self(999);

    /// NVML's own short description of the code (what `nvmlErrorString` returns).
    /// nvidia-smi prints a failed cell as this text in brackets.
    pub fn message(self) -> &'static str {
        match self.0 {
            0 => "Success",
            1 => "Uninitialized",
            2 => "Invalid Argument",
            3 => "Not Supported",
            4 => "Insufficient Permissions",
            5 => "Already Initialized",
            6 => "Not Found",
            7 => "Insufficient Size",
            8 => "Insufficient External Power",
            9 => "Driver Not Loaded",
            10 => "Timeout",
            11 => "Interrupt request issue",
            12 => "NVML Shared Library Not Found",
            13 => "Function Not Found",
            14 => "Corrupted infoROM",
            15 => "GPU is lost",
            16 => "GPU requires reset",
            17 => "GPU access blocked by the operating system",
            18 => "Driver/library version mismatch",
            19 => "In use by another client",
            20 => "Insufficient Memory",
            21 => "No data",
            22 => "The requested vgpu operation is not available on target device, because ECC is enabled",
            23 => "Insufficient resources for request",
            24 => "Frequency not supported",
            25 => "Argument version mismatch",
            26 => "Requested functionality has been deprecated",
            27 => "System is not ready for the request",
            28 => "GPU not found",
            29 => "Invalid state",
            30 => "Reset type not supported",
            _ => "Unknown Error",
        }
    }
}
