; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nounwind memory(argmem: readwrite, inaccessiblemem: write)
define ptx_kernel void @vecadd(ptr noalias nonnull readonly align 4 captures(none) %0, i64 %1, ptr noalias nonnull readonly align 4 captures(none) %2, i64 %3, ptr noalias nonnull writeonly align 4 captures(none) %4, i64 %5) local_unnamed_addr #0 {
entry:
  %6 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %narrow.i = mul nuw i32 %6, %7
  %8 = zext i32 %narrow.i to i64
  %9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %10 = zext nneg i32 %9 to i64
  %11 = add nuw nsw i64 %8, %10
  %12 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %13 = zext nneg i32 %12 to i64
  %14 = mul nuw nsw i64 %11, %13
  %15 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %16 = zext nneg i32 %15 to i64
  %17 = add nuw nsw i64 %14, %16
  %18 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %19 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %narrow2.i = mul nuw nsw i32 %18, %19
  %20 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  %narrow3.i = mul nuw nsw i32 %narrow2.i, %20
  %21 = zext nneg i32 %narrow3.i to i64
  %22 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %narrow1.i = mul nuw nsw i32 %22, %19
  %23 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %narrow4.i = add nuw nsw i32 %narrow1.i, %23
  %narrow5.i = mul nuw nsw i32 %narrow4.i, %18
  %24 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %narrow6.i = add nuw nsw i32 %narrow5.i, %24
  %25 = zext nneg i32 %narrow6.i to i64
  %26 = mul i64 %17, %21
  %27 = add i64 %26, %25
  %.not = icmp ult i64 %27, %5
  %28 = getelementptr inbounds [4 x i8], ptr %4, i64 %27
  br i1 %.not, label %bb2, label %bb6

bb2:                                              ; preds = %entry
  %29 = icmp ult i64 %27, %1
  br i1 %29, label %bb3, label %panic1

bb3:                                              ; preds = %bb2
  %30 = icmp ult i64 %27, %3
  br i1 %30, label %bb4, label %panic

bb4:                                              ; preds = %bb3
  %31 = getelementptr inbounds [4 x i8], ptr %0, i64 %27
  %32 = load float, ptr %31, align 4
  %33 = getelementptr inbounds [4 x i8], ptr %2, i64 %27
  %34 = load float, ptr %33, align 4
  %35 = fadd contract float %32, %34
  store float %35, ptr %28, align 4
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

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.z() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65) i32 @llvm.nvvm.read.ptx.sreg.ntid.z() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.z() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { nounwind memory(argmem: readwrite, inaccessiblemem: write) }
attributes #1 = { cold noreturn nounwind memory(inaccessiblemem: write) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
