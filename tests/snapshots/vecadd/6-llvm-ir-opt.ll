; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nounwind memory(argmem: readwrite, inaccessiblemem: write)
define ptx_kernel void @vecadd(ptr noalias readonly align 4 captures(none) %0, i64 %1, ptr noalias readonly align 4 captures(none) %2, i64 %3, ptr noalias writeonly align 4 captures(address) %4, i64 %5) local_unnamed_addr #0 {
entry:
  %6 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = zext nneg i32 %6 to i64
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %9 = zext nneg i32 %8 to i64
  %10 = mul nuw nsw i64 %7, %9
  %11 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %12 = zext nneg i32 %11 to i64
  %13 = add nuw nsw i64 %10, %12
  %14 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %15 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %narrow.i = mul nuw i32 %14, %15
  %16 = zext i32 %narrow.i to i64
  %17 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %18 = zext nneg i32 %17 to i64
  %19 = add nuw nsw i64 %16, %18
  %20 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %21 = zext nneg i32 %20 to i64
  %22 = mul nuw nsw i64 %19, %21
  %23 = add nuw nsw i64 %22, %7
  %24 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %narrow2.i = mul nuw nsw i32 %8, %24
  %25 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  %narrow3.i = mul nuw nsw i32 %narrow2.i, %25
  %26 = zext nneg i32 %narrow3.i to i64
  %27 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %narrow1.i = mul nuw nsw i32 %27, %24
  %28 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %narrow4.i = add nuw nsw i32 %narrow1.i, %28
  %narrow5.i = mul nuw nsw i32 %narrow4.i, %8
  %narrow6.i = add nuw nsw i32 %narrow5.i, %11
  %29 = zext nneg i32 %narrow6.i to i64
  %30 = mul i64 %23, %26
  %31 = add i64 %30, %29
  %.not = icmp ult i64 %31, %5
  %32 = getelementptr [4 x i8], ptr %4, i64 %31
  %33 = icmp ne ptr %32, null
  %34 = select i1 %.not, i1 %33, i1 false
  br i1 %34, label %bb2, label %bb6

bb2:                                              ; preds = %entry
  %35 = icmp ult i64 %13, %1
  br i1 %35, label %bb3, label %panic1

bb3:                                              ; preds = %bb2
  %36 = icmp ult i64 %13, %3
  br i1 %36, label %bb4, label %panic

bb4:                                              ; preds = %bb3
  %37 = getelementptr [4 x i8], ptr %0, i64 %13
  %38 = load float, ptr %37, align 4
  %39 = getelementptr [4 x i8], ptr %2, i64 %13
  %40 = load float, ptr %39, align 4
  %41 = fadd contract float %38, %40
  store float %41, ptr %32, align 4
  br label %bb6

panic:                                            ; preds = %bb3
  tail call void @llvm.trap()
  unreachable

panic1:                                           ; preds = %bb2
  tail call void @llvm.trap()
  unreachable

bb6:                                              ; preds = %entry, %bb4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.z() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65) i32 @llvm.nvvm.read.ptx.sreg.ntid.z() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.z() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() #1

attributes #0 = { nounwind memory(argmem: readwrite, inaccessiblemem: write) }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { cold noreturn nounwind memory(inaccessiblemem: write) }
