//! What a build used: for each crate cargo reported, the file stem rustc gave its outputs
//! (`vecadd-<hash>`), and so the PTX the backend compiled along with them
//! (docs/contracts.md, "Where the PTX goes").
//!
//! Cargo keeps one set of artifacts per set of flags (the `<hash>` of `-C extra-filename`) and
//! reuses it without compiling again, so after `--arch sm_80`, `--arch sm_90`, `--arch sm_80` the
//! crate's last compilation is sm_90's while the binary is sm_80's. The backend writes
//! `<stem>.ptx` beside each compilation's artifacts; this finds the stem of the artifacts the
//! build used, so the PTX shown is the PTX linked.

use std::path::{Path, PathBuf};

use crate::cargo::Artifact;

/// One crate's PTX, compiled with the artifacts the build used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxImage {
    /// The rustc crate name (`vecadd`).
    pub crate_name: String,
    /// `<deps>/<stem>`: the path of the crate's outputs without extension.
    pub stem: PathBuf,
}

impl PtxImage {
    /// `<deps>/<stem>.ptx`, what the backend wrote with these artifacts.
    pub fn ptx(&self) -> PathBuf {
        self.stem.with_extension("ptx")
    }

    /// `<deps>/<stem>.pipeline/`, where `--cfg oxide_dump` puts the stages.
    pub fn pipeline_dir(&self) -> PathBuf {
        self.stem.with_extension("pipeline")
    }

    /// `<deps>/<crate>.ptx`, the path of the crate's PTX that does not change with the flags.
    pub fn crate_ptx(&self) -> PathBuf {
        self.stem.with_file_name(format!("{}.ptx", self.crate_name))
    }

    /// Makes `crate_ptx` hold this image's PTX (the backend writes it at each compilation, so
    /// it is stale when cargo reused older artifacts). Written beside, then renamed, so that a
    /// reader never sees half a file.
    pub fn refresh_crate_ptx(&self) -> std::io::Result<()> {
        let ptx = std::fs::read(self.ptx())?;
        let dest = self.crate_ptx();
        if std::fs::read(&dest).is_ok_and(|old| old == ptx) {
            return Ok(());
        }
        let partial = dest.with_extension(format!("ptx.partial-{}", std::process::id()));
        std::fs::write(&partial, &ptx)?;
        std::fs::rename(&partial, &dest)
    }
}

/// The PTX images of the crates among `artifacts` that have kernels, in `artifacts`' order.
pub fn images(artifacts: &[Artifact], deps_dir: &Path) -> Vec<PtxImage> {
    let mut images: Vec<PtxImage> = Vec::new();
    for artifact in artifacts {
        let Some(stem) = output_stem(artifact, deps_dir) else {
            continue;
        };
        let image = PtxImage {
            crate_name: artifact.crate_name(),
            stem: deps_dir.join(stem),
        };
        if image.ptx().is_file() && !images.contains(&image) {
            images.push(image);
        }
    }
    images
}

/// The stem of `artifact`'s outputs in `deps_dir`: an rlib's file name without `lib` and
/// `.rlib`; for a binary, the name of the file in `deps_dir` that cargo copied (uplifted) to
/// the executable it reports.
pub fn output_stem(artifact: &Artifact, deps_dir: &Path) -> Option<String> {
    if let Some(rlib) = artifact.file_ending(".rlib") {
        let name = rlib.file_stem()?.to_str()?;
        return Some(name.strip_prefix("lib").unwrap_or(name).to_owned());
    }
    let executable = artifact.executable.as_deref()?;
    uplifted_from(executable, deps_dir, &artifact.crate_name())
}

/// The name of the `<crate>-<hash>` file in `deps_dir` that `binary` is: the same file (cargo
/// hard-links), else one with the same bytes (cargo copies where it cannot link).
fn uplifted_from(binary: &Path, deps_dir: &Path, crate_name: &str) -> Option<String> {
    let prefix = format!("{crate_name}-");
    let candidates: Vec<PathBuf> = std::fs::read_dir(deps_dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_none()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_prefix(&prefix))
                    .is_some_and(|hash| {
                        !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit())
                    })
        })
        .collect();
    let found = candidates
        .iter()
        .find(|c| same_file(binary, c))
        .or_else(|| {
            let bytes = std::fs::read(binary).ok()?;
            candidates
                .iter()
                .find(|c| std::fs::read(c).is_ok_and(|other| other == bytes))
        })?;
    Some(found.file_name()?.to_str()?.to_owned())
}

/// Whether `a` and `b` are one file (one inode).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (a.metadata(), b.metadata()) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(name: &str, kind: &str, files: &[&Path], executable: Option<&Path>) -> Artifact {
        Artifact {
            package_id: name.into(),
            manifest_path: PathBuf::from("/m/Cargo.toml"),
            target_name: name.into(),
            kinds: vec![kind.into()],
            filenames: files.iter().map(|f| f.to_path_buf()).collect(),
            executable: executable.map(Path::to_path_buf),
        }
    }

    /// A deps folder as cargo leaves it after building `k` with two sets of flags and the
    /// library `lib` once: binaries `k-<hash>` (one hard-linked to the uplifted `k`), PTX beside
    /// each compilation, and `k.ptx` from the last compilation, which is not the linked one.
    #[test]
    fn the_linked_compilations_ptx_is_found_not_the_last_ones() {
        let root = std::env::temp_dir().join(format!("cargo-oxide-linked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let deps = root.join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let write = |name: &str, text: &str| std::fs::write(deps.join(name), text).unwrap();
        write("k-00aa", "binary for sm_80");
        write("k-00aa.ptx", ".target sm_80");
        write("k-00aa.d", "");
        write("k-11bb", "binary for sm_90");
        write("k-11bb.ptx", ".target sm_90");
        write("k.ptx", ".target sm_90");
        write("liblib-22cc.rlib", "");
        write("lib-22cc.ptx", ".target sm_80");
        let uplifted = root.join("k");
        std::fs::hard_link(deps.join("k-00aa"), &uplifted).unwrap();

        let bin = artifact("k", "bin", &[&uplifted], Some(&uplifted));
        let rlib = deps.join("liblib-22cc.rlib");
        let lib = artifact(
            "lib",
            "lib",
            &[&rlib, &deps.join("liblib-22cc.rmeta")],
            None,
        );
        let none = artifact(
            "nokernels",
            "lib",
            &[&deps.join("libnokernels-33dd.rlib")],
            None,
        );
        let found = images(&[lib.clone(), none, bin.clone()], &deps);
        assert_eq!(
            found,
            [
                PtxImage {
                    crate_name: "lib".into(),
                    stem: deps.join("lib-22cc")
                },
                PtxImage {
                    crate_name: "k".into(),
                    stem: deps.join("k-00aa")
                },
            ]
        );
        let k = &found[1];
        assert_eq!(k.pipeline_dir(), deps.join("k-00aa.pipeline"));
        k.refresh_crate_ptx().unwrap();
        assert_eq!(
            std::fs::read_to_string(k.crate_ptx()).unwrap(),
            ".target sm_80"
        );

        // A copied binary (no hard link) is found by its bytes.
        std::fs::remove_file(&uplifted).unwrap();
        std::fs::write(&uplifted, "binary for sm_90").unwrap();
        assert_eq!(output_stem(&bin, &deps).as_deref(), Some("k-11bb"));
        std::fs::write(&uplifted, "a binary of no compilation here").unwrap();
        assert_eq!(output_stem(&bin, &deps), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
