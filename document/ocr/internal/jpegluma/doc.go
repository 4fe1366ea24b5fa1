// Package jpegluma decodes the luma of a JPEG row by row, for OCR: a page
// never held whole. It is the Go standard library's image/jpeg decoder (Go
// 1.26, BSD licence: LICENSE here), changed in four places and nowhere
// else, so its Huffman decoding, inverse DCT and tolerance of real files are
// the standard library's, and a page decodes to exactly the luma image/jpeg
// gives:
//
//   - the output is a band of one MCU row, given to a callback row by row
//     once the decoder moves below it, instead of a whole image.YCbCr;
//   - only the first component (the luma of a gray or YCbCr JPEG) is
//     reconstructed; chroma blocks of interleaved scans are decoded to keep
//     the stream in step and dropped, and scans of chroma alone are skipped
//     like extraneous bytes;
//   - a progressive JPEG keeps the coefficients of its luma blocks only
//     (4 bytes a pixel) between scans, where image/jpeg keeps every
//     component's and the whole frame besides (15 bytes a pixel for three
//     full-resolution components);
//   - CMYK, RGB, and JPEGs whose chroma is sampled finer than their luma are
//     refused (ErrNotLuma): the caller decodes those with image/jpeg.
//
// The encoder and DecodeConfig are not here.
package jpegluma
