#include "textflag.h"

// The constants plainBlock compares each byte with.
// The constants the bytes are compared with, 32 of each (SSE2 reads the first 16).
#define CONST32(name, v) \
	DATA name+0(SB)/8, $v; \
	DATA name+8(SB)/8, $v; \
	DATA name+16(SB)/8, $v; \
	DATA name+24(SB)/8, $v; \
	GLOBL name(SB), RODATA|NOPTR, $32

CONST32(plainA<>, 0x6060606060606060)
CONST32(plainZ<>, 0x7b7b7b7b7b7b7b7b)
CONST32(plainDash<>, 0x2d2d2d2d2d2d2d2d)
CONST32(plainSlash<>, 0x2f2f2f2f2f2f2f2f)

// PLAIN16 leaves in R the plain-byte mask of the 16 bytes at off(SI). The compares are signed:
// a byte from 0x80 up is negative, so it is never above 0x60 (no lower-case letter), and it is
// below 0x2d, which the mask of high bits (PMOVMSKB of the bytes themselves) then clears.
#define PLAIN16(off, R) \
	MOVOU	off(SI), X0; \
	MOVO	X0, X1; \
	PCMPGTB	X8, X1; \
	MOVO	X9, X2; \
	PCMPGTB	X0, X2; \
	PAND	X2, X1; \
	MOVO	X10, X3; \
	PCMPGTB	X0, X3; \
	MOVO	X0, X4; \
	PCMPEQB	X11, X4; \
	POR	X4, X3; \
	POR	X3, X1; \
	PMOVMSKB	X1, R; \
	PMOVMSKB	X0, DX; \
	NOTQ	DX; \
	ANDQ	DX, R

// func plainBlockSSE2(p *byte) uint64
TEXT ·plainBlockSSE2(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), SI
	MOVOU	plainA<>(SB), X8
	MOVOU	plainZ<>(SB), X9
	MOVOU	plainDash<>(SB), X10
	MOVOU	plainSlash<>(SB), X11
	PLAIN16(0, AX)
	PLAIN16(16, BX)
	PLAIN16(32, CX)
	PLAIN16(48, DI)
	SHLQ	$16, BX
	ORQ	BX, AX
	SHLQ	$32, CX
	ORQ	CX, AX
	SHLQ	$48, DI
	ORQ	DI, AX
	MOVQ	AX, ret+8(FP)
	RET

// PLAIN32 is PLAIN16 for 32 bytes with AVX2.
#define PLAIN32(off, R) \
	VMOVDQU	off(SI), Y0; \
	VPCMPGTB	Y8, Y0, Y1; \
	VPCMPGTB	Y0, Y9, Y2; \
	VPAND	Y2, Y1, Y1; \
	VPCMPGTB	Y0, Y10, Y3; \
	VPCMPEQB	Y11, Y0, Y4; \
	VPOR	Y4, Y3, Y3; \
	VPOR	Y3, Y1, Y1; \
	VPMOVMSKB	Y1, R; \
	VPMOVMSKB	Y0, DX; \
	NOTL	DX; \
	ANDL	DX, R

// func plainBlockAVX2(p *byte) uint64
TEXT ·plainBlockAVX2(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), SI
	VMOVDQU	plainA<>(SB), Y8
	VMOVDQU	plainZ<>(SB), Y9
	VMOVDQU	plainDash<>(SB), Y10
	VMOVDQU	plainSlash<>(SB), Y11
	PLAIN32(0, AX)
	PLAIN32(32, BX)
	VZEROUPPER
	SHLQ	$32, BX
	ORQ	BX, AX
	MOVQ	AX, ret+8(FP)
	RET

CONST32(class20<>, 0x2020202020202020)
CONST32(class2f<>, 0x2f2f2f2f2f2f2f2f)
CONST32(class3a<>, 0x3a3a3a3a3a3a3a3a)

// CLASS32 leaves in L, H and D the masks of the ASCII letters, of the bytes from 0x80 up and of
// the ASCII digits of the 32 bytes at off(SI). A letter folded to lower case (| 0x20) is above
// 0x60 and below 0x7b, and '@' and '[' .. '_' fold outside; bytes from 0x80 up stay negative.
#define CLASS32(off, L, H, D) \
	VMOVDQU	off(SI), Y0; \
	VPOR	Y12, Y0, Y1; \
	VPCMPGTB	Y8, Y1, Y2; \
	VPCMPGTB	Y1, Y9, Y3; \
	VPAND	Y3, Y2, Y2; \
	VPMOVMSKB	Y2, L; \
	VPMOVMSKB	Y0, H; \
	VPCMPGTB	Y13, Y0, Y2; \
	VPCMPGTB	Y0, Y14, Y3; \
	VPAND	Y3, Y2, Y2; \
	VPMOVMSKB	Y2, D

// func classBlockAVX2(p *byte) (letter, high, digit uint64)
TEXT ·classBlockAVX2(SB), NOSPLIT, $0-32
	MOVQ	p+0(FP), SI
	VMOVDQU	plainA<>(SB), Y8
	VMOVDQU	plainZ<>(SB), Y9
	VMOVDQU	class20<>(SB), Y12
	VMOVDQU	class2f<>(SB), Y13
	VMOVDQU	class3a<>(SB), Y14
	CLASS32(0, AX, BX, CX)
	CLASS32(32, DX, DI, R8)
	VZEROUPPER
	SHLQ	$32, DX
	ORQ	DX, AX
	SHLQ	$32, DI
	ORQ	DI, BX
	SHLQ	$32, R8
	ORQ	R8, CX
	MOVQ	AX, letter+8(FP)
	MOVQ	BX, high+16(FP)
	MOVQ	CX, digit+24(FP)
	RET
