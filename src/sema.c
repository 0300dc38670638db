// SPDX-License-Identifier: GPL-2.0
/* stub: not written yet */
