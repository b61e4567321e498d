; ModuleID = 'vecadd'
source_filename = "vecadd"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @vecadd(ptr noalias readonly align 4 %0, i64 %1, ptr noalias readonly align 4 %2, i64 %3, ptr noalias align 4 %4, i64 %5) {
entry:
  %6 = alloca [16 x i8], align 8
  %7 = alloca [16 x i8], align 8
  %8 = alloca [16 x i8], align 8
  store ptr %0, ptr %6, align 8
  %9 = getelementptr i8, ptr %6, i64 8
  store i64 %1, ptr %9, align 8
  store ptr %2, ptr %7, align 8
  %10 = getelementptr i8, ptr %7, i64 8
  store i64 %3, ptr %10, align 8
  store ptr %4, ptr %8, align 8
  %11 = getelementptr i8, ptr %8, i64 8
  store i64 %5, ptr %11, align 8
  br label %bb0

bb0:                                              ; preds = %entry
  %12 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  br label %bb7

bb7:                                              ; preds = %bb0
  %13 = zext i32 %12 to i64
  %14 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %bb8

bb8:                                              ; preds = %bb7
  %15 = zext i32 %14 to i64
  %16 = mul i64 %13, %15
  %17 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %bb9

bb9:                                              ; preds = %bb8
  %18 = zext i32 %17 to i64
  %19 = add i64 %16, %18
  %20 = call i64 @_RNvMNtCs9vPOGG3QLYC_5oxide6threadNtB2_11ThreadIndex6linear()
  br label %bb1

bb1:                                              ; preds = %bb9
  %21 = getelementptr i8, ptr %8, i64 8
  %22 = load i64, ptr %21, align 8
  %23 = icmp ult i64 %20, %22
  %24 = zext i1 %23 to i8
  %25 = trunc i8 %24 to i1
  %26 = icmp eq i1 %25, false
  br i1 %26, label %bb11, label %bb10

bb11:                                             ; preds = %bb1
  br label %bb12

bb10:                                             ; preds = %bb1
  %27 = load ptr, ptr %8, align 8
  %28 = getelementptr [4 x i8], ptr %27, i64 %20
  br label %bb12

bb12:                                             ; preds = %bb10, %bb11
  %29 = phi ptr [ null, %bb11 ], [ %28, %bb10 ]
  %30 = ptrtoint ptr %29 to i64
  %31 = sub i64 %30, 0
  %32 = icmp ule i64 %31, 0
  %33 = add i64 %31, 0
  %34 = select i1 %32, i64 %33, i64 1
  switch i64 %34, label %bb13 [
    i64 1, label %bb2
    i64 0, label %bb5
  ]

bb13:                                             ; preds = %bb12
  call void @llvm.trap()
  unreachable

bb2:                                              ; preds = %bb12
  %35 = load ptr, ptr %6, align 8
  %36 = getelementptr i8, ptr %6, i64 8
  %37 = load i64, ptr %36, align 8
  %38 = icmp ult i64 %19, %37
  %39 = zext i1 %38 to i8
  %40 = trunc i8 %39 to i1
  br i1 %40, label %bb3, label %panic1

bb3:                                              ; preds = %bb2
  %41 = load ptr, ptr %6, align 8
  %42 = getelementptr i8, ptr %6, i64 8
  %43 = load i64, ptr %42, align 8
  %44 = getelementptr [4 x i8], ptr %41, i64 %19
  %45 = load float, ptr %44, align 4
  %46 = load ptr, ptr %7, align 8
  %47 = getelementptr i8, ptr %7, i64 8
  %48 = load i64, ptr %47, align 8
  %49 = icmp ult i64 %19, %48
  %50 = zext i1 %49 to i8
  %51 = trunc i8 %50 to i1
  br i1 %51, label %bb4, label %panic

bb4:                                              ; preds = %bb3
  %52 = load ptr, ptr %7, align 8
  %53 = getelementptr i8, ptr %7, i64 8
  %54 = load i64, ptr %53, align 8
  %55 = getelementptr [4 x i8], ptr %52, i64 %19
  %56 = load float, ptr %55, align 4
  %57 = fadd contract float %45, %56
  store float %57, ptr %29, align 4
  br label %bb6

panic:                                            ; preds = %bb3
  call void @llvm.trap()
  unreachable

panic1:                                           ; preds = %bb2
  call void @llvm.trap()
  unreachable

bb5:                                              ; preds = %bb12
  br label %bb6

bb6:                                              ; preds = %bb5, %bb4
  ret void
}

define internal i64 @_RNvMNtCs9vPOGG3QLYC_5oxide6threadNtB2_11ThreadIndex6linear() {
entry:
  br label %bb0

bb0:                                              ; preds = %entry
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  br label %bb1

bb1:                                              ; preds = %bb0
  %1 = zext i32 %0 to i64
  %2 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  br label %bb2

bb2:                                              ; preds = %bb1
  %3 = zext i32 %2 to i64
  %4 = mul i64 %1, %3
  %5 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  br label %bb3

bb3:                                              ; preds = %bb2
  %6 = zext i32 %5 to i64
  %7 = add i64 %4, %6
  %8 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  br label %bb4

bb4:                                              ; preds = %bb3
  %9 = zext i32 %8 to i64
  %10 = mul i64 %7, %9
  %11 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  br label %bb5

bb5:                                              ; preds = %bb4
  %12 = zext i32 %11 to i64
  %13 = add i64 %10, %12
  %14 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %bb6

bb6:                                              ; preds = %bb5
  %15 = zext i32 %14 to i64
  %16 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  br label %bb7

bb7:                                              ; preds = %bb6
  %17 = zext i32 %16 to i64
  %18 = mul i64 %15, %17
  %19 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  br label %bb8

bb8:                                              ; preds = %bb7
  %20 = zext i32 %19 to i64
  %21 = mul i64 %18, %20
  %22 = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  br label %bb9

bb9:                                              ; preds = %bb8
  %23 = zext i32 %22 to i64
  %24 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  br label %bb10

bb10:                                             ; preds = %bb9
  %25 = zext i32 %24 to i64
  %26 = mul i64 %23, %25
  %27 = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  br label %bb11

bb11:                                             ; preds = %bb10
  %28 = zext i32 %27 to i64
  %29 = add i64 %26, %28
  %30 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %bb12

bb12:                                             ; preds = %bb11
  %31 = zext i32 %30 to i64
  %32 = mul i64 %29, %31
  %33 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %bb13

bb13:                                             ; preds = %bb12
  %34 = zext i32 %33 to i64
  %35 = add i64 %32, %34
  %36 = mul i64 %13, %21
  %37 = add i64 %36, %35
  ret i64 %37
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #0

; Function Attrs: cold noreturn nounwind memory(inaccessiblemem: write)
declare void @llvm.trap() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.z() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.y() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 65) i32 @llvm.nvvm.read.ptx.sreg.ntid.z() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.z() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() #0

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { cold noreturn nounwind memory(inaccessiblemem: write) }
