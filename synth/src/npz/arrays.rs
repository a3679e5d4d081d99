//! The `.npy` members of an `.npz` archive, read and written with npyz: an
//! array of any integer or real dtype, either byte order and either memory
//! order, as `i64`s or `f64`s in C order; and arrays and scalars written as
//! numpy writes them.

use std::io::{Read, Seek, Write};

use npyz::{DType, NpyFile, Order, TypeChar, TypeStr, WriterBuilder};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use codegen::width::IndexWidth;

use super::in_place::{InPlace, MemberInfo};
use super::NpzError;
use crate::instance::{ValueType, Values};

/// An array read from the archive: its shape (C order) and its values.
pub(super) struct Array<T> {
    pub(super) shape: Vec<u64>,
    pub(super) values: Vec<T>,
}

/// An index array read from the archive: its shape (C order) and its
/// values, at 32 bits ([`Values::Int32`]) when its dtype is an integer of
/// at most 32 bits that fits `int32`, else at 64.
pub(super) struct IndexArray {
    pub(super) shape: Vec<u64>,
    pub(super) values: Values,
}

/// A member being read, buffered: values are read one at a time.
type Member<'a, R> = std::io::BufReader<zip::read::ZipFile<'a, R>>;

/// Opens member `key.npy`; `None` when the archive has no such member.
fn open<'a, R: Read + Seek>(
    zip: &'a mut ZipArchive<R>,
    key: &str,
) -> Result<Option<NpyFile<Member<'a, R>>>, NpzError> {
    let name = format!("{key}.npy");
    let file = match zip.by_name(&name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(NpzError::archive(e)),
    };
    NpyFile::new(std::io::BufReader::with_capacity(1 << 16, file))
        .map(Some)
        .map_err(|e| NpzError::member(key, format!("not a readable .npy array: {e}")))
}

/// The shape of member `key` (read from its header alone); `None` when
/// the archive has no such member or it cannot be read.
pub(super) fn shape_of<R: Read + Seek>(zip: &mut ZipArchive<R>, key: &str) -> Option<Vec<u64>> {
    open(zip, key)
        .ok()
        .flatten()
        .map(|npy| npy.shape().to_vec())
}

/// Whether the archive has member `key.npy`.
pub(super) fn has<R: Read + Seek>(zip: &ZipArchive<R>, key: &str) -> bool {
    zip.index_for_name(&format!("{key}.npy")).is_some()
}

/// The dtype's type string, for plain (non-structured) arrays.
fn type_str(key: &str, dtype: &DType) -> Result<TypeStr, NpzError> {
    match dtype {
        DType::Plain(t) => Ok(t.clone()),
        other => Err(NpzError::member(
            key,
            format!(
                "a structured array ({}) where numbers were expected",
                other.descr()
            ),
        )),
    }
}

/// Reorders values stored in Fortran order (first index fastest) into C order.
fn to_c_order<T: Copy>(shape: &[u64], values: Vec<T>) -> Vec<T> {
    if shape.len() < 2 {
        return values;
    }
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let mut out = values.clone();
    let mut index = vec![0usize; dims.len()];
    for v in out.iter_mut() {
        // `index` walks C order; its Fortran position is read.
        let mut f = 0;
        for d in (0..dims.len()).rev() {
            f = f * dims[d] + index[d];
        }
        *v = values[f];
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// The dtype of member `key`, which must be there.
fn dtype_of<R: Read + Seek>(zip: &mut ZipArchive<R>, key: &str) -> Result<TypeStr, NpzError> {
    let npy = open(zip, key)?.ok_or_else(|| NpzError::missing(key))?;
    type_str(key, &npy.dtype())
}

/// Reads member `key`'s values as `T` through npyz (the caller checked the
/// dtype), then its checksum ([`verify_checksum`]: npyz stops at the last
/// value, short of the archive's check at the member's end).
fn read_as<T, R>(zip: &mut ZipArchive<R>, key: &str) -> Result<Array<T>, NpzError>
where
    T: npyz::Deserialize + Copy,
    R: Read + Seek,
{
    let npy = open(zip, key)?.ok_or_else(|| NpzError::missing(key))?;
    let shape = npy.shape().to_vec();
    let fortran = npy.order() == Order::Fortran;
    let values = npy
        .into_vec::<T>()
        .map_err(|e| NpzError::member(key, format!("cannot read its values: {e}")))?;
    verify_checksum(zip, key)?;
    let values = if fortran {
        to_c_order(&shape, values)
    } else {
        values
    };
    Ok(Array { shape, values })
}

/// Reads the member's values straight from its bytes, `N` little-endian
/// bytes each, decoded by `decode` a chunk at a time (no value read one
/// by one through npyz); `raw` says that `decode` is `T::from_le_bytes`,
/// so that on a little-endian machine the bytes are read into place, or
/// held in the file's own pages when `place` allows ([`InPlace`]).
fn read_le<T, R, const N: usize>(
    zip: &mut ZipArchive<R>,
    key: &str,
    raw: bool,
    decode: impl Fn([u8; N]) -> T,
    place: Option<InPlace<'_>>,
) -> Result<Array<T>, NpzError>
where
    T: bytemuck::Pod,
    R: Read + Seek,
{
    let npy = open(zip, key)?.ok_or_else(|| NpzError::missing(key))?;
    let shape = npy.shape().to_vec();
    let fortran = npy.order() == Order::Fortran;
    let failed = |e: std::io::Error| NpzError::member(key, format!("cannot read its values: {e}"));
    let n = usize::try_from(npy.len())
        .map_err(|_| NpzError::member(key, "holds more values than this machine addresses"))?;
    let mut reader = npy.into_inner();
    let in_c_order = !fortran || shape.len() < 2;
    if let (Some(place), true, true) = (place, raw && std::mem::size_of::<T>() == N, in_c_order) {
        let member = reader.get_ref();
        let info = MemberInfo {
            stored: member.compression() == zip::CompressionMethod::Stored && !member.encrypted(),
            data_start: member.data_start(),
            size: member.size(),
            crc32: member.crc32(),
        };
        if let Some(values) = place.values(key, &info, n)? {
            return Ok(Array { shape, values });
        }
    }
    const CHUNK: usize = 1 << 16;
    let mut buf = vec![0u8; CHUNK * N];
    // Room for every value when the member is large enough to hold them
    // (its size is the archive's word); else room grows with what is
    // read, and a header that announces more than the member holds fails
    // at its end, not at an allocation.
    let mut values = Vec::new();
    let fits = n
        .checked_mul(N)
        .is_some_and(|bytes| bytes as u64 <= reader.get_ref().size());
    if fits {
        values.reserve_exact(n);
    }
    // Values whose in-memory bytes are their little-endian bytes are read
    // into place, without the chunk's copy.
    #[cfg(target_endian = "little")]
    if raw && fits && std::mem::size_of::<T>() == N {
        // Zeroed by the allocator (fresh pages are zero), not written twice.
        values = bytemuck::zeroed_vec(n);
        reader
            .read_exact(bytemuck::cast_slice_mut(&mut values))
            .map_err(failed)?;
    }
    while values.len() < n {
        let m = (n - values.len()).min(CHUNK);
        reader.read_exact(&mut buf[..m * N]).map_err(failed)?;
        values.extend(
            buf[..m * N]
                .chunks_exact(N)
                .map(|c| decode(c.try_into().unwrap_or([0; N]))),
        );
    }
    // The archive checks the member's checksum at its end, which reading
    // exactly the values does not reach.
    std::io::copy(&mut reader, &mut std::io::sink()).map_err(failed)?;
    let values = if fortran {
        to_c_order(&shape, values)
    } else {
        values
    };
    Ok(Array { shape, values })
}

/// Whether values of dtype `t` are stored little-endian.
fn little_endian(t: &TypeStr) -> bool {
    t.endianness() == npyz::Endianness::Little
}

fn convert<T: Copy, U>(
    a: Array<T>,
    f: impl Fn(T) -> Option<U>,
    key: &str,
) -> Result<Array<U>, NpzError> {
    let values = a
        .values
        .into_iter()
        .map(|v| {
            f(v).ok_or_else(|| {
                NpzError::member(key, "holds an integer beyond the 64-bit signed range")
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Array {
        shape: a.shape,
        values,
    })
}

/// Reads member `key` as integers: any signed or unsigned integer dtype.
pub(super) fn read_ints<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
) -> Result<Array<i64>, NpzError> {
    read_any_int(zip, key, None)
}

/// Member `key` as an index array, with the index width its dtype
/// records: 32 for integers of at most 32 bits that fit `int32` (int8 to
/// int32, uint8 and uint16; held as [`Values::Int32`], little-endian int32
/// read straight from its bytes, or in place when `place` allows), 64
/// otherwise.
pub(super) fn read_index<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
    place: Option<InPlace<'_>>,
) -> Result<(IndexArray, IndexWidth), NpzError> {
    let t = dtype_of(zip, key)?;
    let narrow = |a: Array<i64>| IndexArray {
        shape: a.shape,
        // The dtype's values fit 32 bits.
        values: Values::Int32(a.values.into_iter().map(|v| v as i32).collect()),
    };
    match (t.type_char(), t.size_field()) {
        (TypeChar::Int, 4) if little_endian(&t) => {
            let a = read_le(zip, key, true, i32::from_le_bytes, place)?;
            let values = Values::Int32(a.values.into());
            Ok((
                IndexArray {
                    shape: a.shape,
                    values,
                },
                IndexWidth::W32,
            ))
        }
        (TypeChar::Int, 1 | 2 | 4) | (TypeChar::Uint, 1 | 2) => {
            Ok((narrow(read_any_int(zip, key, None)?), IndexWidth::W32))
        }
        _ => {
            let a = read_any_int(zip, key, place)?;
            let values = Values::Int(a.values.into());
            Ok((
                IndexArray {
                    shape: a.shape,
                    values,
                },
                IndexWidth::W64,
            ))
        }
    }
}

/// Reads member `key` as integers of any integer dtype (little-endian
/// int64 in place when `place` allows).
fn read_any_int<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
    place: Option<InPlace<'_>>,
) -> Result<Array<i64>, NpzError> {
    let t = dtype_of(zip, key)?;
    match (t.type_char(), t.size_field()) {
        (TypeChar::Int, 1) => convert(read_as::<i8, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Int, 2) => convert(read_as::<i16, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Int, 4) if little_endian(&t) => {
            read_le(zip, key, false, |b| i64::from(i32::from_le_bytes(b)), None)
        }
        (TypeChar::Int, 8) if little_endian(&t) => {
            read_le(zip, key, true, i64::from_le_bytes, place)
        }
        (TypeChar::Int, 4) => convert(read_as::<i32, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Int, 8) => read_as::<i64, _>(zip, key),
        (TypeChar::Uint, 1) => convert(read_as::<u8, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Uint, 2) => convert(read_as::<u16, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Uint, 4) => convert(read_as::<u32, _>(zip, key)?, |v| Some(i64::from(v)), key),
        (TypeChar::Uint, 8) => {
            convert(read_as::<u64, _>(zip, key)?, |v| i64::try_from(v).ok(), key)
        }
        _ => Err(NpzError::member(
            key,
            format!("has dtype `{t}`, but an index array holds integers (int32 or int64)"),
        )),
    }
}

/// Reads member `key` to its end, where the archive compares its bytes
/// with their checksum: what a reader that stops at the last value (npyz)
/// leaves unchecked.
fn verify_checksum<R: Read + Seek>(zip: &mut ZipArchive<R>, key: &str) -> Result<(), NpzError> {
    let mut file = zip
        .by_name(&format!("{key}.npy"))
        .map_err(NpzError::archive)?;
    std::io::copy(&mut file, &mut std::io::sink())
        .map(drop)
        .map_err(|e| NpzError::member(key, format!("cannot read its values: {e}")))
}

/// Reads member `key` as reals: float64, float32, or an integer dtype
/// (exact up to 2^53, like any reader into `f64`); little-endian float64
/// in place when `place` allows.
pub(super) fn read_reals<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
    place: Option<InPlace<'_>>,
) -> Result<Array<f64>, NpzError> {
    let t = dtype_of(zip, key)?;
    match (t.type_char(), t.size_field()) {
        (TypeChar::Float, 8) if little_endian(&t) => {
            read_le(zip, key, true, f64::from_le_bytes, place)
        }
        (TypeChar::Float, 8) => read_as::<f64, _>(zip, key),
        (TypeChar::Float, 4) => convert(read_as::<f32, _>(zip, key)?, |v| Some(f64::from(v)), key),
        // Integer values are values, whatever their size: each becomes the
        // double equal to it, and one no double equals is refused (a
        // conversion would change it).
        (TypeChar::Uint, 8) => {
            let ints = read_as::<u64, _>(zip, key)?;
            exact_reals(ints, i128::from, key)
        }
        (TypeChar::Int | TypeChar::Uint, _) => exact_reals(read_ints(zip, key)?, i128::from, key),
        (TypeChar::Bool, _) => convert(
            read_as::<bool, _>(zip, key)?,
            |v| Some(f64::from(u8::from(v))),
            key,
        ),
        (TypeChar::Complex, _) => Err(NpzError::member(
            key,
            format!("has dtype `{t}`: complex values are not supported"),
        )),
        _ => Err(NpzError::member(
            key,
            format!("has dtype `{t}`, but values are numbers (float64)"),
        )),
    }
}

/// A value array read from the archive at its dtype's value type.
pub(super) struct ValueArray {
    pub(super) shape: Vec<u64>,
    pub(super) values: Values,
    pub(super) value_type: ValueType,
}

/// Reads member `key` as values at its dtype's type: float32 as
/// [`Values::Real32`], int64 and int32 as integers of those value types
/// (little-endian ones read straight from their bytes), float64 and
/// every other dtype as [`read_reals`] reads it (float64 values).
pub(super) fn read_values<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
    place: Option<InPlace<'_>>,
) -> Result<ValueArray, NpzError> {
    let t = dtype_of(zip, key)?;
    let (shape, values, value_type) = match (t.type_char(), t.size_field()) {
        (TypeChar::Float, 4) => {
            let a = if little_endian(&t) {
                read_le(zip, key, true, f32::from_le_bytes, place)?
            } else {
                read_as::<f32, _>(zip, key)?
            };
            (a.shape, Values::Real32(a.values.into()), ValueType::F32)
        }
        (TypeChar::Int, 8) => {
            let a = read_any_int(zip, key, place)?;
            (a.shape, Values::Int(a.values.into()), ValueType::I64)
        }
        (TypeChar::Int, 4) => {
            let a = if little_endian(&t) {
                read_le(zip, key, true, i32::from_le_bytes, place)?
            } else {
                read_as::<i32, _>(zip, key)?
            };
            (a.shape, Values::Int32(a.values.into()), ValueType::I32)
        }
        _ => {
            let a = read_reals(zip, key, place)?;
            (a.shape, Values::Real(a.values.into()), ValueType::F64)
        }
    };
    Ok(ValueArray {
        shape,
        values,
        value_type,
    })
}

/// Writes a value array as member `key` at its value type `t` (float64,
/// float32, int64, int32).
pub(super) fn write_values<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    shape: &[u64],
    values: &Values,
    t: ValueType,
) -> Result<(), NpzError> {
    use codegen::interp::Array as A;
    if let (ValueType::F64, Values::Real(v)) = (t, values) {
        return write_reals(zip, key, shape, v);
    }
    match values.clone().into_value_array(t) {
        A::Real32(v) => write_raw(zip, key, "<f4", 4, shape, &v, |x, b| {
            b.extend_from_slice(&x.to_le_bytes())
        }),
        A::RealInt(v) | A::Int(v) => write_ints(zip, key, shape, &v, false),
        A::RealInt32(v) => write_raw(zip, key, "<i4", 4, shape, &v, |x, b| {
            b.extend_from_slice(&x.to_le_bytes())
        }),
        A::Real(v) => write_reals(zip, key, shape, &v),
    }
}

/// Integer values as the doubles equal to them.
///
/// # Errors
///
/// The first value no double equals (above 2^53 in magnitude, with low
/// bits a double does not keep).
fn exact_reals<T: Copy + std::fmt::Display>(
    a: Array<T>,
    wide: impl Fn(T) -> i128,
    key: &str,
) -> Result<Array<f64>, NpzError> {
    let mut values = Vec::with_capacity(a.values.len());
    for (k, &v) in a.values.iter().enumerate() {
        let x = wide(v) as f64;
        if x as i128 != wide(v) {
            return Err(NpzError::member(
                key,
                format!(
                    "holds the value {v} (element {k}), which no double equals (the nearest is \
                     {x:.0}); spf reads values of this dtype as doubles, exactly for integers up to 2^53 \
                     (int64 and int32 values keep their type)"
                ),
            ));
        }
        values.push(x);
    }
    Ok(Array {
        shape: a.shape,
        values,
    })
}

/// Reads member `key` as a text scalar (`|S` bytes or `<U` unicode).
pub(super) fn read_text<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    key: &str,
) -> Result<Option<String>, NpzError> {
    let Some(npy) = open(zip, key)? else {
        return Ok(None);
    };
    let t = type_str(key, &npy.dtype())?;
    if !matches!(t.type_char(), TypeChar::ByteStr | TypeChar::UnicodeStr) || !npy.shape().is_empty()
    {
        return Err(NpzError::member(
            key,
            format!(
                "must be a text scalar, not an array of dtype `{t}` and shape {:?}",
                npy.shape()
            ),
        ));
    }
    let mut v = npy
        .into_vec::<String>()
        .map_err(|e| NpzError::member(key, format!("cannot read its text: {e}")))?;
    verify_checksum(zip, key)?;
    Ok(v.pop())
}

/// Where every member's bytes start: at a multiple of 64 bytes in the
/// file (the zip format's alignment padding, which readers skip), so that
/// the values, which the `.npy` header ends at a multiple of 64 too, lie
/// at an offset their alignment divides and can be read in place
/// ([`super::in_place`]).
pub const MEMBER_ALIGNMENT: u16 = 64;

/// The options of every member: stored (no compression, as
/// `save_npz(..., compressed=False)`), aligned ([`MEMBER_ALIGNMENT`]),
/// zip64 when large.
fn options(bytes: u64) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .with_alignment(MEMBER_ALIGNMENT)
        .large_file(bytes >= u64::from(u32::MAX) - 1024)
}

fn dtype(text: &str) -> DType {
    // The type strings below are constants numpy writes.
    DType::Plain(
        text.parse()
            .unwrap_or_else(|_| unreachable!("{text} is a dtype")),
    )
}

fn write_err(key: &str, e: impl std::fmt::Display) -> NpzError {
    NpzError::Write(format!("{key}.npy: {e}"))
}

/// Writes member `key` of dtype `dtype` and `shape` (`bytes` of data, for
/// zip64), its elements pushed by `fill` (the writer's `finish` flushes
/// the buffer, errors included).
fn write_member<T, W>(
    zip: &mut ZipWriter<W>,
    key: &str,
    dtype_text: &str,
    shape: &[u64],
    bytes: u64,
    fill: impl FnOnce(
        &mut npyz::NpyWriter<T, std::io::BufWriter<&mut ZipWriter<W>>>,
    ) -> std::io::Result<()>,
) -> Result<(), NpzError>
where
    T: npyz::Serialize + ?Sized,
    W: Write + Seek,
{
    zip.start_file(format!("{key}.npy"), options(bytes))
        .map_err(|e| write_err(key, e))?;
    let mut w = npyz::WriteOptions::<T>::new()
        .dtype(dtype(dtype_text))
        .shape(shape)
        // Elements are pushed one at a time: buffered, the archive (which
        // updates its checksum on every write) sees large writes.
        .writer(std::io::BufWriter::with_capacity(1 << 16, &mut *zip))
        .begin_nd()
        .map_err(|e| write_err(key, e))?;
    fill(&mut w).map_err(|e| write_err(key, e))?;
    w.finish().map_err(|e| write_err(key, e))
}

/// The most bytes handed to the file in one write.
///
/// Linux's page cache takes a folio as large as the write for it (ext4's
/// large folios): a write of tens of megabytes is put in 2 MiB folios,
/// the free 2 MiB blocks a virtual machine's host takes back after a few
/// seconds (virtio-balloon's free page reporting), and each is faulted in
/// on the host as it is filled. On this project's machines a 64 MiB write
/// took 0.15 s in one call and 0.016 s in pieces of 1 MiB or less (whose
/// folios come from the smaller free blocks, which the host leaves alone);
/// pieces of 256 KiB cost a few hundred system calls more.
pub const WRITE_PIECE: usize = 256 << 10;

/// Writes member `key` of a plain numeric dtype (`dtype_text`, `size`
/// bytes per element, little-endian) and `shape`: the header by npyz, then
/// the elements as raw bytes, `encode` turning a chunk of them into bytes
/// (the archive, which updates its checksum on every write, sees writes of
/// about a megabyte, not one per element).
fn write_raw<T: bytemuck::Pod, W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    dtype_text: &str,
    size: usize,
    shape: &[u64],
    values: &[T],
    encode: impl Fn(T, &mut Vec<u8>),
) -> Result<(), NpzError> {
    let bytes = (size * values.len()) as u64;
    zip.start_file(format!("{key}.npy"), options(bytes))
        .map_err(|e| write_err(key, e))?;
    let zip = npyz::WriteOptions::new_header_only()
        .dtype(dtype(dtype_text))
        .shape(shape)
        .writer(&mut *zip)
        .write_header_only()
        .map_err(|e| write_err(key, e))?;
    // Values whose little-endian bytes are their bytes in memory (the
    // dtype's width is theirs, and this machine is little-endian) are
    // written as they lie, without the copy.
    #[cfg(target_endian = "little")]
    if std::mem::size_of::<T>() == size {
        for piece in bytemuck::cast_slice::<T, u8>(values).chunks(WRITE_PIECE) {
            zip.write_all(piece).map_err(|e| write_err(key, e))?;
        }
        return Ok(());
    }
    let chunk_len = (WRITE_PIECE / size).max(1);
    let mut buf = Vec::with_capacity(chunk_len * size);
    for chunk in values.chunks(chunk_len) {
        buf.clear();
        for &v in chunk {
            encode(v, &mut buf);
        }
        zip.write_all(&buf).map_err(|e| write_err(key, e))?;
    }
    Ok(())
}

/// Writes integers as member `key`, int32 when `narrow`, else int64.
pub(super) fn write_ints<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    shape: &[u64],
    values: &[i64],
    narrow: bool,
) -> Result<(), NpzError> {
    if narrow {
        // `narrow` is chosen only when every value fits.
        write_raw(zip, key, "<i4", 4, shape, values, |v, b| {
            b.extend_from_slice(&(v as i32).to_le_bytes())
        })
    } else {
        write_raw(zip, key, "<i8", 8, shape, values, |v, b| {
            b.extend_from_slice(&v.to_le_bytes())
        })
    }
}

/// Writes an index array (integers at either width) as member `key`,
/// int32 when `narrow`, else int64: 32-bit values written as int32 go
/// out as they are.
pub(super) fn write_index<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    shape: &[u64],
    values: &Values,
    narrow: bool,
) -> Result<(), NpzError> {
    match values {
        Values::Int(v) => write_ints(zip, key, shape, v, narrow),
        Values::Int32(v) if narrow => write_raw(zip, key, "<i4", 4, shape, v, |x, b| {
            b.extend_from_slice(&x.to_le_bytes())
        }),
        Values::Int32(v) => write_raw(zip, key, "<i8", 8, shape, v, |x, b| {
            b.extend_from_slice(&i64::from(x).to_le_bytes())
        }),
        Values::Real(_) | Values::Real32(_) => Err(write_err(key, "an index array holds reals")),
    }
}

/// Writes reals as member `key` (float64).
pub(super) fn write_reals<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    shape: &[u64],
    values: &[f64],
) -> Result<(), NpzError> {
    write_raw(zip, key, "<f8", 8, shape, values, |v, b| {
        b.extend_from_slice(&v.to_le_bytes())
    })
}

/// Writes a text scalar as member `key`, as numpy writes `b"csr"` (`|S3`).
pub(super) fn write_text<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    text: &str,
) -> Result<(), NpzError> {
    let dtype_text = format!("|S{}", text.len().max(1));
    write_member::<str, W>(zip, key, &dtype_text, &[], 0, |w| w.push(text))
}

/// Writes a boolean scalar as member `key` (`|b1`).
pub(super) fn write_flag<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    key: &str,
    flag: bool,
) -> Result<(), NpzError> {
    write_member::<bool, W>(zip, key, "|b1", &[], 0, |w| w.push(&flag))
}

#[cfg(test)]
mod tests {
    use super::to_c_order;

    #[test]
    fn fortran_order_becomes_c_order() {
        // [[1, 2, 3], [4, 5, 6]] stored column by column.
        assert_eq!(
            to_c_order(&[2, 3], vec![1, 4, 2, 5, 3, 6]),
            vec![1, 2, 3, 4, 5, 6]
        );
        assert_eq!(to_c_order(&[3], vec![1, 2, 3]), vec![1, 2, 3]);
    }
}
