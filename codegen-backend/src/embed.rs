//! Puts the PTX into an object file linked with the crate, as the symbol
//! `oxide_contract::ptx_image_symbol` (`__oxide_ptx_<crate>`, NUL-terminated text) that the
//! generated launchers read.

use object::write::{Object, StandardSection, Symbol, SymbolSection};
use object::{Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};
use rustc_codegen_ssa::{CompiledModule, ModuleKind};
use rustc_session::{Session, config::OutputFilenames};

use crate::device::PtxImage;

pub(crate) fn ptx_object(
    sess: &Session,
    outputs: &OutputFilenames,
    ptx: &PtxImage,
) -> Result<CompiledModule, String> {
    if sess.target.arch.to_string() != "x86_64"
        || sess.target.options.is_like_darwin
        || sess.target.options.is_like_windows
    {
        return Err(format!(
            "embedding PTX supports x86_64 ELF hosts, not `{}`",
            sess.target.llvm_target
        ));
    }
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let section = obj.section_id(StandardSection::ReadOnlyData);
    let mut bytes = ptx.ptx.clone().into_bytes();
    bytes.push(0);
    let symbol = obj.add_symbol(Symbol {
        name: oxide_contract::ptx_image_symbol(&ptx.crate_name).into_bytes(),
        value: 0,
        size: 0,
        kind: SymbolKind::Data,
        scope: SymbolScope::Linkage,
        weak: false,
        section: SymbolSection::Undefined,
        flags: SymbolFlags::None,
    });
    obj.add_symbol_data(symbol, section, &bytes, 16);
    let data = obj.write().map_err(|e| e.to_string())?;
    let path = outputs.with_extension("oxide-ptx.o");
    std::fs::write(&path, data).map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(CompiledModule {
        name: "oxide_ptx".to_string(),
        kind: ModuleKind::Regular,
        object: Some(path),
        dwarf_object: None,
        bytecode: None,
        assembly: None,
        llvm_ir: None,
        links_from_incr_cache: Vec::new(),
    })
}
