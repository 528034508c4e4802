#include "textflag.h"

// 32 bytes of v repeated, or two 16-byte tables (one per 128-bit lane, for VPSHUFB).
#define CONST32(name, v) \
	DATA name+0(SB)/8, $v; \
	DATA name+8(SB)/8, $v; \
	DATA name+16(SB)/8, $v; \
	DATA name+24(SB)/8, $v; \
	GLOBL name(SB), RODATA|NOPTR, $32

#define TABLE16(name, lo, hi) \
	DATA name+0(SB)/8, $lo; \
	DATA name+8(SB)/8, $hi; \
	DATA name+16(SB)/8, $lo; \
	DATA name+24(SB)/8, $hi; \
	GLOBL name(SB), RODATA|NOPTR, $32

// Each byte is classified by two table lookups, one on its low nibble and one on its high
// nibble; the AND of the two has bit b set exactly when the byte is the one bit b stands for,
// since every bit stands for one byte value. Bytes from 0x80 up have a high nibble the high
// tables map to 0.
//
// First set, in the order of the mark constants of normalize.go: bit 0 '%' (0x25), 1 '&'
// (0x26), 2 ':' (0x3a), 3 '<' (0x3c), 4 '[' (0x5b), 5 '(' (0x28), 6 '{' (0x7b), 7 '@' (0x40).
// Low nibble 0 -> '@', 5 -> '%', 6 -> '&', 8 -> '(', a -> ':', b -> '[' '{', c -> '<'.
TABLE16(marksLo1<>, 0x0002010000000080, 0x0000000850040020)
// High nibble 2 -> '%' '&' '(', 3 -> ':' '<', 4 -> '@', 5 -> '[', 7 -> '{'.
TABLE16(marksHi1<>, 0x400010800c230000, 0x0000000000000000)
// Second set: bit 2 '\' (0x5c), 3 '*' (0x2a), 4 '`' (0x60), 5 '~' (0x7e).
// Low nibble 0 -> '`', a -> '*', c -> '\', e -> '~'.
TABLE16(marksLo2<>, 0x0000000000000010, 0x0020000400080000)
// High nibble 2 -> '*', 5 -> '\', 6 -> '`', 7 -> '~'.
TABLE16(marksHi2<>, 0x2010040000080000, 0x0000000000000000)
CONST32(marksNibble<>, 0x0f0f0f0f0f0f0f0f)
// " d" and "ot" as little-endian 16-bit words.
CONST32(marksSpD<>, 0x6420642064206420)
CONST32(marksOT<>, 0x746f746f746f746f)

// OR8 leaves in the low byte of R the OR of the 32 bytes of the vector register Y (X is its
// lower half); it uses X12 and DX.
#define OR8(Y, X, R) \
	VEXTRACTI128	$1, Y, X12; \
	VPOR	X12, X, X12; \
	MOVQ	X12, R; \
	VPEXTRQ	$1, X12, DX; \
	ORQ	DX, R; \
	MOVQ	R, DX; \
	SHRQ	$32, DX; \
	ORQ	DX, R; \
	MOVQ	R, DX; \
	SHRQ	$16, DX; \
	ORQ	DX, R; \
	MOVQ	R, DX; \
	SHRQ	$8, DX; \
	ORQ	DX, R

// ROUND classifies the 32 bytes at SI+BX into Y10 (first set), Y11 (second set) and Y9 (" dot"
// starting at one of them).
#define ROUND \
	VMOVDQU	(SI)(BX*1), Y0; \
	VPSRLW	$4, Y0, Y1; \
	VPAND	Y15, Y1, Y1; \
	VPAND	Y15, Y0, Y2; \
	VPSHUFB	Y2, Y5, Y3; \
	VPSHUFB	Y1, Y6, Y4; \
	VPAND	Y4, Y3, Y3; \
	VPOR	Y3, Y10, Y10; \
	VPSHUFB	Y2, Y7, Y3; \
	VPSHUFB	Y1, Y8, Y4; \
	VPAND	Y4, Y3, Y3; \
	VPOR	Y3, Y11, Y11; \
	VPCMPEQW	Y13, Y0, Y3; \
	VPCMPEQW	2(SI)(BX*1), Y14, Y4; \
	VPAND	Y4, Y3, Y3; \
	VPCMPEQW	1(SI)(BX*1), Y13, Y4; \
	VPCMPEQW	3(SI)(BX*1), Y14, Y12; \
	VPAND	Y12, Y4, Y4; \
	VPOR	Y4, Y3, Y3; \
	VPOR	Y3, Y9, Y9

// func byteMarksAVX2(p *byte, n int) (marks uint16, done int)
//
// Bits of marks, in the order of the mark constants of normalize.go: '%', '&', ':', '<', '[',
// '(', '{', '@' among the bytes p[0:done], (bit 9) " dot" starting at one of them, (bit 10) a
// backslash, and (bit 11) '*', '`' or '~'. done is a multiple of 32 with done+3 <= n: the
// caller reads the bytes from done on. " dot" is found as the 16-bit words " d" and "ot" two
// bytes apart, at even and at odd offsets.
TEXT ·byteMarksAVX2(SB), NOSPLIT, $0-32
	MOVQ	p+0(FP), SI
	MOVQ	n+8(FP), CX
	SUBQ	$3, CX          // a block at k is read while k+32+3 <= n
	XORQ	BX, BX          // k
	VMOVDQU	marksLo1<>(SB), Y5
	VMOVDQU	marksHi1<>(SB), Y6
	VMOVDQU	marksLo2<>(SB), Y7
	VMOVDQU	marksHi2<>(SB), Y8
	VMOVDQU	marksSpD<>(SB), Y13
	VMOVDQU	marksOT<>(SB), Y14
	VMOVDQU	marksNibble<>(SB), Y15
	VPXOR	Y9, Y9, Y9
	VPXOR	Y10, Y10, Y10
	VPXOR	Y11, Y11, Y11
loop64:
	LEAQ	64(BX), DX
	CMPQ	DX, CX
	JGT	tail
	ROUND
	ADDQ	$32, BX
	ROUND
	ADDQ	$32, BX
	JMP	loop64
tail:
	LEAQ	32(BX), DX
	CMPQ	DX, CX
	JGT	end
	ROUND
	ADDQ	$32, BX
end:
	XORQ	AX, AX
	VPMOVMSKB	Y9, DX
	TESTL	DX, DX
	JZ	nodot
	MOVQ	$512, AX
nodot:
	OR8(Y10, X10, R8)
	MOVBQZX	R8B, R8
	ORQ	R8, AX
	OR8(Y11, X11, R9)
	MOVQ	R9, R8          // '`' (bit 4) and '~' (bit 5) mark as '*' (bit 3)
	SHRQ	$1, R8
	MOVQ	R9, R10
	SHRQ	$2, R10
	ORQ	R10, R8
	ANDQ	$0x08, R8
	ORQ	R8, R9
	ANDQ	$0x0c, R9
	SHLQ	$8, R9
	ORQ	R9, AX
	VZEROUPPER
	MOVW	AX, marks+16(FP)
	MOVQ	BX, done+24(FP)
	RET
