; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nounwind memory(argmem: readwrite, inaccessiblemem: write)
define ptx_kernel void @vecadd(ptr noalias nonnull readonly align 16 captures(none) %0, i64 %1, ptr noalias nonnull readonly align 16 captures(none) %2, i64 %3, ptr noalias nonnull writeonly align 16 captures(none) %4, i64 %5) local_unnamed_addr #0 {
entry:
  %6 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = zext nneg i32 %6 to i64
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %9 = zext nneg i32 %8 to i64
  %10 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = mul nuw nsw i64 %7, %9
  %13 = add nuw nsw i64 %12, %11
  %.not.i = icmp ult i64 %13, %5
  %14 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %13
  br i1 %.not.i, label %bb3, label %bb7

bb3:                                              ; preds = %entry
  %15 = icmp ult i64 %13, %1
  br i1 %15, label %bb4, label %panic1

bb4:                                              ; preds = %bb3
  %16 = icmp ult i64 %13, %3
  br i1 %16, label %bb5, label %panic

bb5:                                              ; preds = %bb4
  %17 = getelementptr inbounds nuw [4 x i8], ptr %0, i64 %13
  %18 = load float, ptr %17, align 4
  %19 = getelementptr inbounds nuw [4 x i8], ptr %2, i64 %13
  %20 = load float, ptr %19, align 4
  %21 = fadd contract float %18, %20
  store float %21, ptr %14, align 4
  br label %bb7

panic:                                            ; preds = %bb4
  tail call void @llvm.trap()
  unreachable

panic1:                                           ; preds = %bb3
  tail call void @llvm.trap()
  unreachable

bb7:                                              ; preds = %entry, %bb5
  ret void
}

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { nounwind memory(argmem: readwrite, inaccessiblemem: write) }
attributes #1 = { cold noreturn nounwind memory(inaccessiblemem: write) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
