#include "textflag.h"

// The bytes byteMarksAVX2 looks for, 32 of each.
#define CONST32(name, v) \
	DATA name+0(SB)/8, $v; \
	DATA name+8(SB)/8, $v; \
	DATA name+16(SB)/8, $v; \
	DATA name+24(SB)/8, $v; \
	GLOBL name(SB), RODATA|NOPTR, $32

CONST32(markPctB<>, 0x2525252525252525)
CONST32(markAmpB<>, 0x2626262626262626)
CONST32(markColonB<>, 0x3a3a3a3a3a3a3a3a)
CONST32(markLtB<>, 0x3c3c3c3c3c3c3c3c)
CONST32(markLBrackB<>, 0x5b5b5b5b5b5b5b5b)
CONST32(markLParenB<>, 0x2828282828282828)
CONST32(markLBraceB<>, 0x7b7b7b7b7b7b7b7b)
CONST32(markAtB<>, 0x4040404040404040)
CONST32(markSpaceB<>, 0x2020202020202020)
CONST32(markDB<>, 0x6464646464646464)
CONST32(markOB<>, 0x6f6f6f6f6f6f6f6f)
CONST32(markTB<>, 0x7474747474747474)
CONST32(markBslashB<>, 0x5c5c5c5c5c5c5c5c)
CONST32(markStarB<>, 0x2a2a2a2a2a2a2a2a)
CONST32(markTickB<>, 0x6060606060606060)
CONST32(markTildeB<>, 0x7e7e7e7e7e7e7e7e)

// ACC ors into acc the bytes of Y0 that equal the constant c.
#define ACC(c, acc) \
	VPCMPEQB	c(SB), Y0, Y12; \
	VPOR	Y12, acc, acc

// MARK sets bit in AX when acc has a byte set.
#define MARK(acc, bit) \
	VPMOVMSKB	acc, DX; \
	TESTL	DX, DX; \
	JZ	2(PC); \
	ORQ	$bit, AX

// func byteMarksAVX2(p *byte, n int) (marks uint16, done int)
//
// Bits of marks, in the order of the mark constants of normalize.go: '%', '&', ':', '<', '[',
// '(', '{', '@' among the bytes p[0:done], (bit 9) " dot" starting at one of them, (bit 10) a
// backslash, and (bit 11) '*', '`' or '~'. done is
// a multiple of 32 with done+3 <= n: the caller reads the bytes from done on.
TEXT ·byteMarksAVX2(SB), NOSPLIT, $0-32
	MOVQ	p+0(FP), SI
	MOVQ	n+8(FP), CX
	SUBQ	$3, CX          // a block at k is read while k+32+3 <= n
	XORQ	BX, BX          // k
	VPXOR	Y1, Y1, Y1
	VPXOR	Y2, Y2, Y2
	VPXOR	Y3, Y3, Y3
	VPXOR	Y4, Y4, Y4
	VPXOR	Y5, Y5, Y5
	VPXOR	Y6, Y6, Y6
	VPXOR	Y7, Y7, Y7
	VPXOR	Y8, Y8, Y8
	VPXOR	Y9, Y9, Y9
	VPXOR	Y13, Y13, Y13
	VPXOR	Y14, Y14, Y14
loop:
	LEAQ	32(BX), DX
	CMPQ	DX, CX
	JGT	end
	VMOVDQU	(SI)(BX*1), Y0
	ACC(markPctB<>, Y1)
	ACC(markAmpB<>, Y2)
	ACC(markColonB<>, Y3)
	ACC(markLtB<>, Y4)
	ACC(markLBrackB<>, Y5)
	ACC(markLParenB<>, Y6)
	ACC(markLBraceB<>, Y7)
	ACC(markAtB<>, Y8)
	ACC(markBslashB<>, Y13)
	ACC(markStarB<>, Y14)
	ACC(markTickB<>, Y14)
	ACC(markTildeB<>, Y14)
	// " dot": a space at k, 'd' at k+1, 'o' at k+2, 't' at k+3.
	VPCMPEQB	markSpaceB<>(SB), Y0, Y10
	VMOVDQU	1(SI)(BX*1), Y11
	VPCMPEQB	markDB<>(SB), Y11, Y11
	VPAND	Y11, Y10, Y10
	VMOVDQU	2(SI)(BX*1), Y11
	VPCMPEQB	markOB<>(SB), Y11, Y11
	VPAND	Y11, Y10, Y10
	VMOVDQU	3(SI)(BX*1), Y11
	VPCMPEQB	markTB<>(SB), Y11, Y11
	VPAND	Y11, Y10, Y10
	VPOR	Y10, Y9, Y9
	MOVQ	DX, BX
	JMP	loop
end:
	XORQ	AX, AX
	MARK(Y1, 1)
	MARK(Y2, 2)
	MARK(Y3, 4)
	MARK(Y4, 8)
	MARK(Y5, 16)
	MARK(Y6, 32)
	MARK(Y7, 64)
	MARK(Y8, 128)
	MARK(Y9, 512)
	MARK(Y13, 1024)
	MARK(Y14, 2048)
	VZEROUPPER
	MOVW	AX, marks+16(FP)
	MOVQ	BX, done+24(FP)
	RET
