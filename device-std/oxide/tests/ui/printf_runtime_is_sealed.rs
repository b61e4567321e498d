// What `printf!` builds cannot be forged in safe code: printing a buffer the macro did not
// check is `unsafe`, and the conversions (`%s` from a `&CStr` only) cannot be extended, so no
// safe code can have the driver read memory through a `%s`.
struct Addr(usize);

impl oxide::debug::CString for Addr {
    fn to_c_string(self) -> *const u8 {
        self.0 as *const u8
    }
}

fn main() {
    oxide::debug::print_formatted("%s\n\0", &0x10usize);
}
