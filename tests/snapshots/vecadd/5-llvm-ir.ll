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
  %12 = call i64 @_RNvMs0_NtCs4lD73eoPaqn_12oxide_device6threadNtB5_11ThreadIndex6linear()
  br label %bb1

bb1:                                              ; preds = %bb0
  %13 = getelementptr inbounds i8, ptr %8, i64 8
  %14 = load i64, ptr %13, align 8
  %15 = icmp ult i64 %12, %14
  %16 = zext i1 %15 to i8
  %17 = trunc i8 %16 to i1
  %18 = icmp eq i1 %17, false
  br i1 %18, label %bb9, label %bb7

bb9:                                              ; preds = %bb1
  br label %bb10

bb7:                                              ; preds = %bb1
  %19 = load ptr, ptr %8, align 8
  %20 = ptrtoint ptr %19 to i64
  br label %bb8

bb8:                                              ; preds = %bb7
  %21 = getelementptr inbounds [4 x i8], ptr %19, i64 %12
  br label %bb10

bb10:                                             ; preds = %bb8, %bb9
  %22 = phi ptr [ null, %bb9 ], [ %21, %bb8 ]
  %23 = ptrtoint ptr %22 to i64
  %24 = sub i64 %23, 0
  %25 = icmp ule i64 %24, 0
  %26 = add i64 %24, 0
  %27 = select i1 %25, i64 %26, i64 1
  switch i64 %27, label %bb11 [
    i64 1, label %bb2
    i64 0, label %bb5
  ]

bb11:                                             ; preds = %bb10
  call void @llvm.trap()
  unreachable

bb2:                                              ; preds = %bb10
  %28 = load ptr, ptr %6, align 8
  %29 = getelementptr inbounds i8, ptr %6, i64 8
  %30 = load i64, ptr %29, align 8
  %31 = icmp ult i64 %12, %30
  %32 = zext i1 %31 to i8
  %33 = trunc i8 %32 to i1
  br i1 %33, label %bb3, label %panic1

bb3:                                              ; preds = %bb2
  %34 = load ptr, ptr %6, align 8
  %35 = getelementptr inbounds i8, ptr %6, i64 8
  %36 = load i64, ptr %35, align 8
  %37 = getelementptr inbounds [4 x i8], ptr %34, i64 %12
  %38 = load float, ptr %37, align 4
  %39 = load ptr, ptr %7, align 8
  %40 = getelementptr inbounds i8, ptr %7, i64 8
  %41 = load i64, ptr %40, align 8
  %42 = icmp ult i64 %12, %41
  %43 = zext i1 %42 to i8
  %44 = trunc i8 %43 to i1
  br i1 %44, label %bb4, label %panic

bb4:                                              ; preds = %bb3
  %45 = load ptr, ptr %7, align 8
  %46 = getelementptr inbounds i8, ptr %7, i64 8
  %47 = load i64, ptr %46, align 8
  %48 = getelementptr inbounds [4 x i8], ptr %45, i64 %12
  %49 = load float, ptr %48, align 4
  %50 = fadd contract float %38, %49
  store float %50, ptr %22, align 4
  br label %bb6

panic:                                            ; preds = %bb3
  call void @llvm.trap()
  unreachable

panic1:                                           ; preds = %bb2
  call void @llvm.trap()
  unreachable

bb5:                                              ; preds = %bb10
  br label %bb6

bb6:                                              ; preds = %bb5, %bb4
  ret void
}

define internal i64 @_RNvMs0_NtCs4lD73eoPaqn_12oxide_device6threadNtB5_11ThreadIndex6linear() {
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

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { cold noreturn nounwind memory(inaccessiblemem: write) }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
