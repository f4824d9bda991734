fn main() {
    // tauri-build only watches capabilities at its default location; ours live
    // in src-tauri/capabilities because the package root is the repository root.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    tauri_build::try_build(
        tauri_build::Attributes::new().capabilities_path_pattern("src-tauri/capabilities/**/*"),
    )
    .expect("tauri-build failed (tauri.conf.json, icons or capabilities)");
}
