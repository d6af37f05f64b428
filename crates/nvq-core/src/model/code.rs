#![allow(missing_docs)]
//! NVML return codes as nvq sees them, and the text NVML gives each one.
//! (The conversion from nvml-wrapper's error type lives in `crate::nvml`.)

/// An NVML return code (`nvmlReturn_t`). Codes that only exist on the nvq side
/// (a symbol missing from the library) are mapped to the NVML code that means
/// the same thing, so that every failure carries exactly one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvmlCode(pub u32);

impl NvmlCode {
    pub const SUCCESS: Self = Self(0);
    pub const UNINITIALIZED: Self = Self(1);
    pub const INVALID_ARGUMENT: Self = Self(2);
    pub const NOT_SUPPORTED: Self = Self(3);
    pub const NO_PERMISSION: Self = Self(4);
    pub const NOT_FOUND: Self = Self(6);
    pub const INSUFFICIENT_SIZE: Self = Self(7);
    pub const DRIVER_NOT_LOADED: Self = Self(9);
    pub const TIMEOUT: Self = Self(10);
    pub const LIBRARY_NOT_FOUND: Self = Self(12);
    pub const FUNCTION_NOT_FOUND: Self = Self(13);
    pub const GPU_IS_LOST: Self = Self(15);
    pub const RESET_REQUIRED: Self = Self(16);
    pub const LIB_RM_VERSION_MISMATCH: Self = Self(18);
    pub const ARGUMENT_VERSION_MISMATCH: Self = Self(25);
    pub const DEPRECATED: Self = Self(26);
    pub const GPU_NOT_FOUND: Self = Self(28);
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
