; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: write)
define ptx_kernel void @vecadd(ptr noalias nonnull readonly align 16 captures(none) %0, i64 %1, ptr noalias nonnull readonly align 16 captures(none) %2, i64 %3, ptr noalias nonnull writeonly align 16 captures(none) %4, i64 %5) local_unnamed_addr #0 {
entry:
  %6 = icmp eq i64 %1, %3
  tail call void @llvm.assume(i1 %6)
  %7 = icmp eq i64 %1, %5
  tail call void @llvm.assume(i1 %7)
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %9 = zext nneg i32 %8 to i64
  %10 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %13 = zext nneg i32 %12 to i64
  %14 = mul nuw nsw i64 %9, %11
  %15 = add nuw nsw i64 %14, %13
  %.not.i.not.i = icmp ult i64 %15, %1
  br i1 %.not.i.not.i, label %bb5.i, label %_RNvNvCsgTCZmIs4rOx_6vecadd6vecadd19___oxide_kernel_body.exit

bb5.i:                                            ; preds = %entry
  %16 = getelementptr inbounds nuw [4 x i8], ptr %4, i64 %15
  %17 = getelementptr inbounds nuw [4 x i8], ptr %0, i64 %15
  %18 = load float, ptr %17, align 4
  %19 = getelementptr inbounds nuw [4 x i8], ptr %2, i64 %15
  %20 = load float, ptr %19, align 4
  %21 = fadd contract float %18, %20
  store float %21, ptr %16, align 4
  br label %_RNvNvCsgTCZmIs4rOx_6vecadd6vecadd19___oxide_kernel_body.exit

_RNvNvCsgTCZmIs4rOx_6vecadd6vecadd19___oxide_kernel_body.exit: ; preds = %entry, %bb5.i
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: write) }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
