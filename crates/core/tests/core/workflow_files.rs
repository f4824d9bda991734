//! The Workflows screen's folder through the functions its commands call:
//! listing, an atomic save that reports problems, and reads and saves
//! only in the open folder (picked in the dialog, or remembered from last
//! time), a save only of a `.yaml` or `.yml` file directly in it.

use std::path::Path;

use sift_core::workflows::files::{
    list_workflows, read_workflow, remembered_folder, save_workflow,
};

use crate::TempDir;
use crate::sessions::app_workspace;

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_folder_lists_its_workflow_files_and_saving_reports_problems() {
    let dir = TempDir::new("wf-list");
    let folder = dir.0.join("flows");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("b.yml"), "steps: []\n").unwrap();
    std::fs::write(folder.join("a.yaml"), "steps: []\n").unwrap();
    std::fs::write(folder.join("notes.txt"), "x").unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&folder);
    let names: Vec<String> = list_workflows(&ws, &folder)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect();
    assert_eq!(names, ["a.yaml", "b.yml"]);
    let file = folder.join("a.yaml");
    let problems = save_workflow(
        &ws,
        &file,
        "# kept\nsteps:\n  - {id: a, run: 'true', depends: zzz}\n",
    )
    .unwrap();
    assert_eq!(problems, ["step a depends on non-existent step zzz"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# kept\nsteps:\n  - {id: a, run: 'true', depends: zzz}\n"
    );
    // Nothing is left beside it.
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 3);
}

#[test]
fn a_save_outside_the_open_folder_is_refused_and_writes_nothing() {
    let dir = TempDir::new("wf-refused");
    let folder = dir.0.join("flows");
    let other = dir.0.join("other");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(folder.join("a.yaml"), "steps: []\n").unwrap();
    let ws = app_workspace(&dir, None);

    // No folder opened yet: nothing may be saved, even in the folder.
    let error = save_workflow(&ws, &folder.join("a.yaml"), "steps: 1\n").unwrap_err();
    assert_eq!(error.code(), "path_not_allowed");
    assert_eq!(
        std::fs::read_to_string(folder.join("a.yaml")).unwrap(),
        "steps: []\n"
    );
    // A folder the webview names is neither listed nor read.
    let error = list_workflows(&ws, &folder).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{} was not picked in an open dialog, dropped on the window or found in a folder \
             picked in this session: nothing was read",
            folder.display()
        )
    );
    let error = read_workflow(&ws, &folder.join("a.yaml")).unwrap_err();
    assert_eq!(error.code(), "path_not_allowed");

    ws.grants().grant_folder(&folder);
    list_workflows(&ws, &folder).unwrap();
    save_workflow(&ws, &folder.join("a.yaml"), "steps: []\n# saved\n").unwrap();
    assert_eq!(
        read_workflow(&ws, &folder.join("a.yaml")).unwrap().text,
        "steps: []\n# saved\n"
    );
    // Another folder, a climb out of it, a subfolder, the folder's other
    // files, a relative path: refused.
    std::fs::create_dir_all(folder.join(".git/hooks")).unwrap();
    for path in [
        other.join("b.yaml"),
        folder.join("../other/b.yaml"),
        folder.join(".git/hooks/pre-commit"),
        folder.join(".git/b.yaml"),
        folder.join("notes.txt"),
        Path::new("b.yaml").to_path_buf(),
    ] {
        let error = save_workflow(&ws, &path, "steps: []\n").unwrap_err();
        assert_eq!(error.code(), "path_not_allowed", "{}", path.display());
        assert_eq!(
            error.to_string(),
            format!(
                "{} is not a .yaml or .yml file directly in the open workflow folder: nothing \
                 was written",
                path.display()
            )
        );
    }
    assert!(names_in(&other).is_empty());
    assert_eq!(names_in(&folder), [".git", "a.yaml"]);
    assert!(names_in(&folder.join(".git/hooks")).is_empty());
}

#[test]
fn the_folder_opened_last_is_remembered_and_open_at_the_next_launch() {
    let dir = TempDir::new("wf-remembered");
    let folder = dir.0.join("flows");
    let other = dir.0.join("other");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    // The user's configuration file keeps its comments.
    std::fs::write(
        dir.0.join("config.toml"),
        "# mine\n[context]\nIMAGES_IN_CONTEXT = 3\n",
    )
    .unwrap();
    let ws = app_workspace(&dir, None);
    ws.grants().grant_folder(&folder);
    list_workflows(&ws, &folder).unwrap();
    let canonical = folder.canonicalize().unwrap();
    assert_eq!(remembered_folder(&ws).unwrap(), Some(canonical.clone()));
    let config = std::fs::read_to_string(dir.0.join("config.toml")).unwrap();
    assert!(
        config.starts_with("# mine\n[context]\nIMAGES_IN_CONTEXT = 3\n"),
        "{config}"
    );
    drop(ws);

    // The next launch: no dialog; the remembered folder opens, another does not.
    let ws = app_workspace(&dir, None);
    assert_eq!(ws.config().context.images_in_context, Some(3));
    assert_eq!(
        list_workflows(&ws, &other).unwrap_err().code(),
        "path_not_allowed"
    );
    assert_eq!(
        save_workflow(&ws, &other.join("x.yaml"), "steps: []\n")
            .unwrap_err()
            .code(),
        "path_not_allowed"
    );
    list_workflows(&ws, &folder).unwrap();
    save_workflow(&ws, &folder.join("new.yaml"), "steps: []\n").unwrap();
    assert_eq!(names_in(&folder), ["new.yaml"]);
    assert!(names_in(&other).is_empty());
    assert_eq!(remembered_folder(&ws).unwrap(), Some(canonical));
}
