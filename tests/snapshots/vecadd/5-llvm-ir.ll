; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @vecadd(ptr noalias nonnull readonly align 16 %0, i64 %1, ptr noalias nonnull readonly align 16 %2, i64 %3, ptr noalias nonnull align 16 %4, i64 %5) {
entry:
  %6 = alloca [16 x i8], align 8
  %7 = alloca [16 x i8], align 8
  %8 = alloca [16 x i8], align 8
  store ptr %0, ptr %6, align 8
  %9 = getelementptr inbounds i8, ptr %6, i64 8
  store i64 %1, ptr %9, align 8
  store ptr %2, ptr %7, align 8
  %10 = getelementptr inbounds i8, ptr %7, i64 8
  store i64 %3, ptr %10, align 8
  store ptr %4, ptr %8, align 8
  %11 = getelementptr inbounds i8, ptr %8, i64 8
  store i64 %5, ptr %11, align 8
  br label %bb0

bb0:                                              ; preds = %entry
  %12 = load ptr, ptr %6, align 8
  %13 = getelementptr inbounds i8, ptr %6, i64 8
  %14 = load i64, ptr %13, align 8
  %15 = load ptr, ptr %7, align 8
  %16 = getelementptr inbounds i8, ptr %7, i64 8
  %17 = load i64, ptr %16, align 8
  %18 = icmp eq i64 %14, %17
  %19 = zext i1 %18 to i8
  %20 = trunc i8 %19 to i1
  call void @llvm.assume(i1 %20)
  %21 = getelementptr inbounds i8, ptr %8, i64 8
  %22 = load i64, ptr %21, align 8
  %23 = icmp eq i64 %17, %22
  %24 = zext i1 %23 to i8
  %25 = trunc i8 %24 to i1
  call void @llvm.assume(i1 %25)
  %26 = load ptr, ptr %6, align 8
  %27 = getelementptr inbounds i8, ptr %6, i64 8
  %28 = load i64, ptr %27, align 8
  %29 = load ptr, ptr %7, align 8
  %30 = getelementptr inbounds i8, ptr %7, i64 8
  %31 = load i64, ptr %30, align 8
  %32 = load ptr, ptr %8, align 8
  %33 = getelementptr inbounds i8, ptr %8, i64 8
  %34 = load i64, ptr %33, align 8
  call void @_RNvNvCsgTCZmIs4rOx_6vecadd6vecadd19___oxide_kernel_body(ptr %26, i64 %28, ptr %29, i64 %31, ptr %32, i64 %34)
  br label %bb1

bb1:                                              ; preds = %bb0
  ret void
}

define internal void @_RNvNvCsgTCZmIs4rOx_6vecadd6vecadd19___oxide_kernel_body(ptr %0, i64 %1, ptr %2, i64 %3, ptr %4, i64 %5) #0 {
entry:
  %6 = alloca [16 x i8], align 8
  %7 = alloca [16 x i8], align 8
  %8 = alloca [16 x i8], align 8
  store ptr %0, ptr %6, align 8
  %9 = getelementptr inbounds i8, ptr %6, i64 8
  store i64 %1, ptr %9, align 8
  store ptr %2, ptr %7, align 8
  %10 = getelementptr inbounds i8, ptr %7, i64 8
  store i64 %3, ptr %10, align 8
  store ptr %4, ptr %8, align 8
  %11 = getelementptr inbounds i8, ptr %8, i64 8
  store i64 %5, ptr %11, align 8
  br label %bb0

bb0:                                              ; preds = %entry
  %12 = call i64 @_RNvMs0_NtCs6KCAFlJauy6_12oxide_device6threadNtB5_11ThreadIndex6linear()
  br label %bb1

bb1:                                              ; preds = %bb0
  br label %bb8

bb8:                                              ; preds = %bb1
  %13 = call ptr @_RNvMCs6KCAFlJauy6_12oxide_deviceINtB2_13DisjointSlicefE7get_mutCsgTCZmIs4rOx_6vecadd(ptr %8, i64 %12)
  br label %bb2

bb2:                                              ; preds = %bb8
  %14 = ptrtoint ptr %13 to i64
  %15 = sub i64 %14, 0
  %16 = icmp ule i64 %15, 0
  %17 = add i64 %15, 0
  %18 = select i1 %16, i64 %17, i64 1
  %19 = icmp eq i64 %18, 1
  br i1 %19, label %bb3, label %bb6

bb3:                                              ; preds = %bb2
  %20 = load ptr, ptr %6, align 8
  %21 = getelementptr inbounds i8, ptr %6, i64 8
  %22 = load i64, ptr %21, align 8
  %23 = icmp ult i64 %12, %22
  %24 = zext i1 %23 to i8
  %25 = trunc i8 %24 to i1
  br i1 %25, label %bb4, label %panic1

bb4:                                              ; preds = %bb3
  %26 = load ptr, ptr %6, align 8
  %27 = getelementptr inbounds i8, ptr %6, i64 8
  %28 = load i64, ptr %27, align 8
  %29 = getelementptr inbounds nuw [4 x i8], ptr %26, i64 %12
  %30 = load float, ptr %29, align 4
  %31 = load ptr, ptr %7, align 8
  %32 = getelementptr inbounds i8, ptr %7, i64 8
  %33 = load i64, ptr %32, align 8
  %34 = icmp ult i64 %12, %33
  %35 = zext i1 %34 to i8
  %36 = trunc i8 %35 to i1
  br i1 %36, label %bb5, label %panic

bb5:                                              ; preds = %bb4
  %37 = load ptr, ptr %7, align 8
  %38 = getelementptr inbounds i8, ptr %7, i64 8
  %39 = load i64, ptr %38, align 8
  %40 = getelementptr inbounds nuw [4 x i8], ptr %37, i64 %12
  %41 = load float, ptr %40, align 4
  %42 = fadd contract float %30, %41
  store float %42, ptr %13, align 4
  br label %bb7

panic:                                            ; preds = %bb4
  call void @llvm.trap()
  unreachable

panic1:                                           ; preds = %bb3
  call void @llvm.trap()
  unreachable

bb6:                                              ; preds = %bb2
  br label %bb7

bb7:                                              ; preds = %bb6, %bb5
  ret void
}

define internal i64 @_RNvMs0_NtCs6KCAFlJauy6_12oxide_device6threadNtB5_11ThreadIndex6linear() {
entry:
  br label %bb0

bb0:                                              ; preds = %entry
  br label %bb1

bb1:                                              ; preds = %bb0
  br label %bb2

bb2:                                              ; preds = %bb1
  br label %bb3

bb3:                                              ; preds = %bb2
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  br label %bb4

bb4:                                              ; preds = %bb3
  %1 = zext i32 %0 to i64
  %2 = mul i64 0, %1
  %3 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  br label %bb5

bb5:                                              ; preds = %bb4
  %4 = zext i32 %3 to i64
  %5 = add i64 %2, %4
  %6 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %bb6

bb6:                                              ; preds = %bb5
  %7 = zext i32 %6 to i64
  br label %bb7

bb7:                                              ; preds = %bb6
  %8 = mul i64 %7, 1
  br label %bb8

bb8:                                              ; preds = %bb7
  %9 = mul i64 %8, 1
  br label %bb9

bb9:                                              ; preds = %bb8
  br label %bb10

bb10:                                             ; preds = %bb9
  br label %bb11

bb11:                                             ; preds = %bb10
  %10 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %bb12

bb12:                                             ; preds = %bb11
  %11 = zext i32 %10 to i64
  %12 = mul i64 0, %11
  %13 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %bb13

bb13:                                             ; preds = %bb12
  %14 = zext i32 %13 to i64
  %15 = add i64 %12, %14
  %16 = mul i64 %5, %9
  %17 = add i64 %16, %15
  ret i64 %17
}

define internal ptr @_RNvMCs6KCAFlJauy6_12oxide_deviceINtB2_13DisjointSlicefE7get_mutCsgTCZmIs4rOx_6vecadd(ptr %0, i64 %1) {
entry:
  br label %bb0

bb0:                                              ; preds = %entry
  br label %bb5

bb5:                                              ; preds = %bb0
  %2 = getelementptr inbounds i8, ptr %0, i64 8
  %3 = load i64, ptr %2, align 8
  %4 = icmp ult i64 %1, %3
  %5 = zext i1 %4 to i8
  %6 = trunc i8 %5 to i1
  %7 = icmp eq i1 %6, false
  br i1 %7, label %bb3, label %bb1

bb3:                                              ; preds = %bb5
  br label %bb4

bb1:                                              ; preds = %bb5
  %8 = load ptr, ptr %0, align 8
  %9 = ptrtoint ptr %8 to i64
  br label %bb2

bb2:                                              ; preds = %bb1
  %10 = load ptr, ptr %0, align 8
  %11 = getelementptr inbounds nuw [4 x i8], ptr %10, i64 %1
  %12 = ptrtoint ptr %11 to i64
  %13 = icmp eq i64 %12, 0
  %14 = zext i1 %13 to i8
  %15 = trunc i8 %14 to i1
  %16 = xor i1 %15, true
  %17 = zext i1 %16 to i8
  %18 = trunc i8 %17 to i1
  call void @llvm.assume(i1 %18)
  br label %bb4

bb4:                                              ; preds = %bb2, %bb3
  %19 = phi ptr [ null, %bb3 ], [ %11, %bb2 ]
  ret ptr %19
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #1

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { "oxide-kernel-body" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }
attributes #2 = { cold noreturn nounwind memory(inaccessiblemem: write) }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
