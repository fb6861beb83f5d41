const f = async (a: T): Promise<U> => { return `x${a}` }; class C { #m() {} get s() { return /a\/b/g } }
