fn main() {
    // Real NVML's SONAME, so LD_PRELOAD / LD_LIBRARY_PATH symlinks behave like the driver's library.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnvidia-ml.so.1");
    println!("cargo:rerun-if-changed=build.rs");
}
