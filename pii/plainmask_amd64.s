#include "textflag.h"

// The constants plainBlock compares each byte with.
DATA plainA<>+0(SB)/8, $0x6060606060606060
DATA plainA<>+8(SB)/8, $0x6060606060606060
GLOBL plainA<>(SB), RODATA|NOPTR, $16
DATA plainZ<>+0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA plainZ<>+8(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL plainZ<>(SB), RODATA|NOPTR, $16
DATA plainDash<>+0(SB)/8, $0x2d2d2d2d2d2d2d2d
DATA plainDash<>+8(SB)/8, $0x2d2d2d2d2d2d2d2d
GLOBL plainDash<>(SB), RODATA|NOPTR, $16
DATA plainSlash<>+0(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA plainSlash<>+8(SB)/8, $0x2f2f2f2f2f2f2f2f
GLOBL plainSlash<>(SB), RODATA|NOPTR, $16

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

// func plainBlock(p *byte) uint64
TEXT ·plainBlock(SB), NOSPLIT, $0-16
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
