//! [`GraphBuffers`]: the buffers a [`Graph`](super::Graph) borrows for its lifetime, and
//! [`Lend`]: how a capture lends them back to the work it records, reborrowed for the capture
//! only.

use crate::memory::{DeviceMemory, Region};
use crate::{DeviceBuffer, DeviceView, DeviceViewMut};

/// What [`Gpu::capture`](crate::Gpu::capture) takes as the buffers of a graph, borrowed for the
/// graph's lifetime `'g`:
///
/// | given | the graph may | the capture lends back |
/// |---|---|---|
/// | `&buf` of a `DeviceBuffer<T>` | read it | `&DeviceBuffer<T>` |
/// | `&mut buf` | read and write it | `&mut DeviceBuffer<T>` |
/// | `buf.slice(range)?`, a `DeviceView<T>` | read that part | `&DeviceView<T>` |
/// | `buf.slice_mut(range)?`, a `DeviceViewMut<T>` | read and write that part | `&mut DeviceViewMut<T>` |
/// | a tuple (up to 8), an array or a `Vec` of these | each | the same shape |
///
/// Sealed: what a graph may touch is decided here.
pub trait GraphBuffers<'g>: for<'x> Lend<'x> + sealed::Sealed {
    /// Appends the memory held (its record, device, and whether the graph may write it).
    #[doc(hidden)]
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>);
}

/// How the buffers of a capture are lent to the work it records: reborrowed for `'x`, the
/// capture's closure only, so they cannot leave it (the graph keeps the borrows). The second
/// parameter is never given: its default `&'x Self` says that `Self` outlives `'x`, which
/// `GraphBuffers`' `for<'x>` bound needs.
pub trait Lend<'x, Outlives = &'x Self>: sealed::Sealed {
    /// The reborrowed buffers.
    type Lent;

    #[doc(hidden)]
    fn lend(&'x mut self) -> Self::Lent;
}

mod sealed {
    pub trait Sealed {}
}

impl<T> sealed::Sealed for &DeviceBuffer<T> {}

impl<'x, T> Lend<'x> for &DeviceBuffer<T> {
    type Lent = &'x DeviceBuffer<T>;
    fn lend(&'x mut self) -> Self::Lent {
        self
    }
}

impl<'g, T> GraphBuffers<'g> for &'g DeviceBuffer<T> {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        held.push(self.region());
    }
}

impl<T> sealed::Sealed for &mut DeviceBuffer<T> {}

impl<'x, T> Lend<'x> for &mut DeviceBuffer<T> {
    type Lent = &'x mut DeviceBuffer<T>;
    fn lend(&'x mut self) -> Self::Lent {
        self
    }
}

impl<'g, T> GraphBuffers<'g> for &'g mut DeviceBuffer<T> {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        held.push(Region {
            write: true,
            ..self.region()
        });
    }
}

impl<T> sealed::Sealed for DeviceView<'_, T> {}

impl<'x, 'g, T> Lend<'x> for DeviceView<'g, T> {
    type Lent = &'x DeviceView<'g, T>;
    fn lend(&'x mut self) -> Self::Lent {
        self
    }
}

impl<'g, T> GraphBuffers<'g> for DeviceView<'g, T> {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        held.push(self.region());
    }
}

impl<T> sealed::Sealed for DeviceViewMut<'_, T> {}

impl<'x, 'g, T> Lend<'x> for DeviceViewMut<'g, T> {
    type Lent = &'x mut DeviceViewMut<'g, T>;
    fn lend(&'x mut self) -> Self::Lent {
        self
    }
}

impl<'g, T> GraphBuffers<'g> for DeviceViewMut<'g, T> {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        held.push(Region {
            write: true,
            ..self.region()
        });
    }
}

/// Tuples lend each element; `()` holds nothing.
macro_rules! tuple_buffers {
    ($($name:ident),*) => {
        impl<$($name: sealed::Sealed),*> sealed::Sealed for ($($name,)*) {}

        #[allow(non_snake_case, clippy::unused_unit)]
        impl<'x, $($name: Lend<'x>),*> Lend<'x> for ($($name,)*) {
            type Lent = ($($name::Lent,)*);
            fn lend(&'x mut self) -> Self::Lent {
                let ($($name,)*) = self;
                ($($name.lend(),)*)
            }
        }

        #[allow(non_snake_case, unused_variables)]
        impl<'g, $($name: GraphBuffers<'g>),*> GraphBuffers<'g> for ($($name,)*) {
            fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
                let ($($name,)*) = self;
                $($name.hold(held);)*
            }
        }
    };
}

tuple_buffers!();
tuple_buffers!(A);
tuple_buffers!(A, B);
tuple_buffers!(A, B, C);
tuple_buffers!(A, B, C, D);
tuple_buffers!(A, B, C, D, E);
tuple_buffers!(A, B, C, D, E, F);
tuple_buffers!(A, B, C, D, E, F, G);
tuple_buffers!(A, B, C, D, E, F, G, H);

impl<B: sealed::Sealed, const N: usize> sealed::Sealed for [B; N] {}

impl<'x, B: Lend<'x>, const N: usize> Lend<'x> for [B; N] {
    type Lent = [B::Lent; N];
    fn lend(&'x mut self) -> Self::Lent {
        self.each_mut().map(Lend::lend)
    }
}

impl<'g, B: GraphBuffers<'g>, const N: usize> GraphBuffers<'g> for [B; N] {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        self.iter().for_each(|b| b.hold(held));
    }
}

impl<B: sealed::Sealed> sealed::Sealed for Vec<B> {}

impl<'x, B: Lend<'x>> Lend<'x> for Vec<B> {
    type Lent = Vec<B::Lent>;
    fn lend(&'x mut self) -> Self::Lent {
        self.iter_mut().map(Lend::lend).collect()
    }
}

impl<'g, B: GraphBuffers<'g>> GraphBuffers<'g> for Vec<B> {
    fn hold<'s>(&'s self, held: &mut Vec<Region<'s>>) {
        self.iter().for_each(|b| b.hold(held));
    }
}
